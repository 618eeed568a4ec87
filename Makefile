# The two commands of the README's Quick start: `make run` and `make test`.
# Both create the virtual environment in .venv on first use (or when
# pyproject.toml changes) and reuse it afterwards. `make package` adds
# PyInstaller (the `package` extra) to it and builds the standalone app, `make deb` the Debian
# package of it;
# `make bench` adds Anki (the `bench` extra) and its desktop app (`desktop-bench`) and
# measures Recall beside them. `make test-sync-engine` runs the tests over two real Syncthing
# instances (installing syncthing with apt-get when it is missing); CI runs it after `make test`.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PACKAGE_STAMP := $(VENV)/.installed-package
BENCH_STAMP := $(VENV)/.installed-bench
DESKTOP_STAMP := $(VENV)/.installed-desktop-bench
PYINSTALLER := $(BIN)/pyinstaller --noconfirm --clean --log-level WARN

.PHONY: run test test-sync-engine lint lint-deck typecheck unit bench bench-smoke benchmark package package-onefile deb clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Recall needs Python 3.11 or newer: run make PYTHON=python3.11 ...")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

$(PACKAGE_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,package]'
	@touch $(PACKAGE_STAMP)

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	@touch $(BENCH_STAMP)

$(DESKTOP_STAMP): $(BENCH_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench,desktop-bench]'
	@touch $(DESKTOP_STAMP)

run: $(STAMP)  ## open the window on the bundled deck
	$(BIN)/recall $(ARGS)

test: lint typecheck unit lint-deck  ## every check CI runs

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The bundled deck through the deck checker. Its accepted warnings are forced by the seed quiz's
# wording, which the deck keeps word for word (see docs/bundled-deck.md); any other warning, or
# an accepted one that no longer occurs, fails this step.
DECK_ACCEPTED := correct-longest give-away:sqrt-n-checkpointing give-away:optimizer-state-oom

lint-deck: $(STAMP)
	$(BIN)/recall lint decks/activation_recompute.json $(addprefix --accept ,$(DECK_ACCEPTED))

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest

# The tests over a real sync engine: two Syncthing instances on this machine (tests/helpers/syncthing.py).
# They need the `syncthing` program; on Debian/Ubuntu this installs it (as root, or with sudo).
test-sync-engine: $(STAMP)  ## sync through two real Syncthing instances (installs syncthing)
	@if ! command -v syncthing >/dev/null; then \
		if ! command -v apt-get >/dev/null; then \
			echo "test-sync-engine needs Syncthing: install it (https://syncthing.net/downloads/) so that 'syncthing' is on PATH"; exit 1; \
		fi; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq syncthing; \
	fi
	QT_QPA_PLATFORM=offscreen $(BIN)/pytest -m syncthing

bench: $(DESKTOP_STAMP)  ## Recall beside Anki and the floor, up to 1,000,000 cards; writes docs/benchmarks.md
	$(BIN)/python -m benchmarks --million

bench-smoke: $(BENCH_STAMP)  ## the same on small collections, quickly (CI)
	$(BIN)/python -m benchmarks --smoke

benchmark: bench

package: $(PACKAGE_STAMP)  ## the standalone app in one folder: dist/Recall/recall
	$(PYINSTALLER) --distpath dist --workpath build/pyinstaller packaging/recall.spec

package-onefile: $(PACKAGE_STAMP)  ## the standalone app as one file: dist/onefile/recall
	$(PYINSTALLER) --distpath dist/onefile --workpath build/onefile packaging/recall.spec -- --onefile

# The Debian package of the one-folder app: built by `make package` only if dist/Recall is not
# there yet, so CI packages the app it has just smoke-tested instead of building it again.
deb: $(STAMP)  ## dist/recall_VERSION_ARCH.deb from dist/Recall (dpkg-deb)
	@test -x dist/Recall/recall || $(MAKE) package
	$(BIN)/python packaging/build_deb.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache
