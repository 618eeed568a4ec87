"""Recall's translation catalogs: gather the marked messages, update each language, check them.

    python scripts/translations.py extract        # resources/locale/recall.pot from the source
    python scripts/translations.py update de      # merge it into de.po (new and dropped entries)
    python scripts/translations.py check          # every shipped catalog complete and consistent

A message is marked by a call to ``tr``, ``trp``, ``trn`` or ``mark`` from ``recall.core.i18n``
with string literals (docs/translating.md). ``check`` fails on a message with no translation, a
fuzzy one, a placeholder (``{count}``) missing or added, or a plural with the wrong number of
forms: ``make test`` runs it, so a shipped language is complete.
"""

from __future__ import annotations

import ast
import string
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "src" / "recall"
LOCALE = ROOT / "resources" / "locale"
TEMPLATE = LOCALE / "recall.pot"
_CALLS = {"tr": (None, 0, None), "trp": (0, 1, None), "trn": (None, 0, 1), "mark": (None, 0, None)}
_HEADER = (
    'msgid ""\nmsgstr ""\n'
    '"Project-Id-Version: Recall\\n"\n'
    '"MIME-Version: 1.0\\n"\n'
    '"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Content-Transfer-Encoding: 8bit\\n"\n'
)


@dataclass
class Message:
    """One marked message and where the source uses it."""

    context: str | None
    message: str
    plural: str | None = None
    places: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str | None, str]:
        return self.context, self.message


class MarkingError(ValueError):
    """A marking call whose message is not a string literal (it cannot be extracted)."""


def extract(root: Path = SOURCE) -> dict[tuple[str | None, str], Message]:
    """Every marked message under ``root``, in the order first met, with its places.

    Raises:
        MarkingError: A call passes something other than a string literal as a message.
    """
    found: dict[tuple[str | None, str], Message] = {}
    for path in sorted(root.rglob("*.py")):
        place = path.relative_to(root.parent).as_posix()
        for message in _marked(path, place):
            known = found.setdefault(message.key, message)
            if known is not message:
                known.places.extend(message.places)
                if message.plural and not known.plural:
                    known.plural = message.plural
    return found


def _marked(path: Path, place: str) -> Iterator[Message]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        shape = _CALLS.get(node.func.id)
        if shape is None:
            continue
        context_at, message_at, plural_at = shape
        where = f"{place}:{node.lineno}"

        def literal(index: int, where: str = where, node: ast.Call = node) -> str:
            if index >= len(node.args):
                raise MarkingError(f"{where}: {ast.unparse(node)} lacks a message")
            argument = node.args[index]
            if not isinstance(argument, ast.Constant) or not isinstance(argument.value, str):
                raise MarkingError(f"{where}: the message of {ast.unparse(node)} is not a literal")
            return argument.value

        yield Message(
            None if context_at is None else literal(context_at),
            literal(message_at),
            None if plural_at is None else literal(plural_at),
            [where],
        )


def template(messages: Iterable[Message]) -> str:
    """The ``.pot`` text of ``messages``."""
    parts = [_HEADER]
    for message in messages:
        parts.append(_entry(message, None))
    return "\n".join(parts)


def update(messages: dict[tuple[str | None, str], Message], po: str, plural_count: int) -> str:
    """``po``'s translations carried onto the template's messages: new ones empty, dropped
    ones kept at the end as obsolete (``#~``) so a translator's work is never lost."""
    header, existing = _entries(po)
    parts = [header or _HEADER]
    for key, message in messages.items():
        parts.append(_entry(message, existing.pop(key, None), plural_count))
    for (context, text), forms in existing.items():
        if not any(forms):
            continue
        stale = _entry(Message(context, text), forms, plural_count)
        parts.append("\n".join(f"#~ {line}" for line in stale.splitlines() if line) + "\n")
    return "\n".join(parts)


def problems(messages: dict[tuple[str | None, str], Message], po: str, name: str) -> list[str]:
    """What keeps the catalog ``po`` from being complete for ``messages``."""
    from recall.core.i18n import CatalogError, parse

    try:
        catalog = parse(name, po, name)
    except CatalogError as error:
        return [str(error)]
    found: list[str] = []
    for key, message in messages.items():
        forms = catalog.messages.get(key)
        where = message.places[0]
        if not forms or not all(forms):
            found.append(f"{name}: {message.message!r} ({where}) has no translation")
            continue
        if message.plural is not None and len(forms) != catalog.plural_count:
            found.append(
                f"{name}: {message.message!r} ({where}) needs {catalog.plural_count} forms"
            )
        wanted = _fields(message.message) | _fields(message.plural or "")
        for form in forms:
            if _fields(form) - wanted or (
                message.plural is None and _fields(form) != _fields(message.message)
            ):
                found.append(
                    f"{name}: {message.message!r} ({where}): the translation {form!r} has "
                    f"placeholders {sorted(_fields(form))}, the message {sorted(wanted)}"
                )
    return found


def _fields(text: str) -> set[str]:
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<malformed braces>"}


def _entries(po: str) -> tuple[str, dict[tuple[str | None, str], tuple[str, ...]]]:
    """A ``.po`` file's header text and its translations, fuzzy ones included."""
    from recall.core.i18n import parse

    unfuzzed = "\n".join(line for line in po.splitlines() if line.strip() != "#, fuzzy")
    catalog = parse("update", unfuzzed, "update")
    header_end = po.find("\n\n")
    header = po[: header_end + 1] if po.startswith(("msgid", "#")) and header_end > 0 else ""
    return header, dict(catalog.messages)


def _entry(message: Message, forms: tuple[str, ...] | None, plural_count: int = 2) -> str:
    lines = [f"#: {place}" for place in message.places[:4]]
    if message.context is not None:
        lines.append(f"msgctxt {_quote(message.context)}")
    lines.append(f"msgid {_quote(message.message)}")
    if message.plural is None:
        lines.append(f"msgstr {_quote(forms[0] if forms else '')}")
    else:
        lines.append(f"msgid_plural {_quote(message.plural)}")
        for index in range(plural_count):
            form = forms[index] if forms and index < len(forms) else ""
            lines.append(f"msgstr[{index}] {_quote(form)}")
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    if "\n" not in escaped:
        return f'"{escaped}"'
    pieces = escaped.split("\n")
    parts = [f"{piece}\\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    return '""\n' + "\n".join(f'"{part}"' for part in parts)


def main(arguments: list[str]) -> int:
    """Run one command (``extract``, ``update LANG``, ``check``); the exit status."""
    command = arguments[0] if arguments else ""
    messages = extract()
    if command == "extract":
        LOCALE.mkdir(parents=True, exist_ok=True)
        TEMPLATE.write_text(template(messages.values()), encoding="utf-8")
        print(f"{len(messages)} messages in {TEMPLATE.relative_to(ROOT)}")
        return 0
    if command == "update" and len(arguments) == 2:
        from recall.core.i18n import parse

        path = LOCALE / f"{arguments[1]}.po"
        po = path.read_text(encoding="utf-8") if path.exists() else ""
        plural_count = parse(arguments[1], po, path.name).plural_count if po else 2
        path.write_text(update(messages, po, plural_count), encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {len(messages)} messages")
        return 0
    if command == "check":
        found: list[str] = []
        for path in sorted(LOCALE.glob("*.po")):
            found += problems(messages, path.read_text(encoding="utf-8"), path.stem)
        for problem in found:
            print(problem)
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
