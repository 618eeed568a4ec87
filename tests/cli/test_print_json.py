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
