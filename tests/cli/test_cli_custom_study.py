"""`recall cram` and `recall custom` list the cards a session would show and change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.changes.test_card_changes import snapshot
from tests.cli.test_cli import run
from tests.cli.test_cli_cards import TINY


@pytest.fixture
def data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    folder = tmp_path / "data"
    assert run(capsys, "--data-dir", str(folder), "import", str(TINY))[0] == 0
    return folder


def test_cram_lists_the_searched_cards_and_changes_nothing(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(data_dir / "recall.sqlite3")
    status, out, _ = run(capsys, "--data-dir", str(data_dir), "cram", "deck:tiny", "--list")
    assert status == 0
    assert out.splitlines()[0].split() == ["ID", "DECK", "DUE", "QUESTION"]
    assert "Cram: deck:tiny: 2 cards. Answers move no due date." in out
    assert snapshot(data_dir / "recall.sqlite3") == before


def test_custom_new_from_a_tag_and_its_errors(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = str(data_dir)
    status, out, _ = run(
        capsys, "--data-dir", folder, "custom", "new", "--tag", "nothing", "--list"
    )
    assert status == 0
    assert "New cards tagged nothing: 0 cards." in out
    status, _, err = run(capsys, "--data-dir", folder, "custom", "new", "--list")
    assert status != 0
    assert "need a tag" in err
    status, out, _ = run(capsys, "--data-dir", folder, "custom", "preview", "--days", "3", "--list")
    assert status == 0
    assert "Preview: due within 3 days: 0 cards." in out
    status, out, _ = run(
        capsys, "--data-dir", folder, "custom", "extra", "--deck", "tiny", "--list"
    )
    assert status == 0
    assert "tiny: beyond today's limits: 2 cards." in out


def test_custom_search_lists_a_cid_search_and_names_every_kind(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from recall.cli.custom_study import _KINDS
    from recall.study.custom import SessionKind

    assert set(_KINDS) == {kind.value for kind in SessionKind}
    folder = str(data_dir)
    _, out, _ = run(capsys, "--data-dir", folder, "cram", "deck:tiny", "--list")
    first = out.splitlines()[2].split()[0]
    status, out, _ = run(
        capsys, "--data-dir", folder, "custom", "search", "--search", f"cid:{first}", "--list"
    )
    assert status == 0
    assert f"Study: cid:{first}: 1 card. Study them in the window" in out
