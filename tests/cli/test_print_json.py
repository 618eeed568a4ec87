"""JSON printed with a long list one entry per line is the same JSON."""

from __future__ import annotations

import json

import pytest

from recall.cli.shared import print_json


@pytest.mark.parametrize(
    "value",
    [
        {"deck": "d", "cards": {"new": 1}, "items": [{"card": "c0", "text": "Ä"}, {"card": "c1"}]},
        {"deck": "d", "items": []},
        {"items": [{"card": "c0"}]},
        {"deck": "d"},
    ],
)
def test_a_list_one_entry_per_line_reads_back_as_the_value(
    value: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    print_json(value, one_per_line="items")
    printed = capsys.readouterr().out
    assert json.loads(printed) == value
    items = value.get("items")
    if isinstance(items, list) and items:
        lines = printed.splitlines()
        start = lines.index('  "items": [')
        assert [json.loads(line.strip().rstrip(",")) for line in lines[start + 1 : -2]] == items
    assert "\\u00c4" not in printed  # non-ASCII text stays readable


@pytest.mark.parametrize("count", [0, 1, 999, 1000, 1001, 2500])
def test_entries_print_one_per_line_however_many(
    count: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whether written by print_json or given written already (as a generator), and across
    the batches the entries are written in, the list is the same text."""
    items = [{"card": f"c{n}", "text": 'Ä "x"', "share": n / 3} for n in range(count)]
    lines = [json.dumps(item, ensure_ascii=False) for item in items]
    listed = "[\n    " + ",\n    ".join(lines) + "\n  ]" if lines else "[]"
    expected = '{\n  "deck": "d",\n  "items": ' + listed + "\n}\n"
    print_json({"deck": "d", "items": items}, one_per_line="items")
    assert capsys.readouterr().out == expected
    print_json({"deck": "d", "items": iter(lines)}, one_per_line="items", encoded=True)
    assert capsys.readouterr().out == expected
