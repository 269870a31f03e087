"""The caches' JSON: read and written by orjson, with `json` taking what orjson refuses."""

from __future__ import annotations

import json

import pytest
from markupsafe import Markup

from scholarsite.inputs.jsondata import dumps, loads, loads_checked, sorted_text, written_alike

VALUES = [
    {"entries": {"k": "plain", "é": "\u2028 and \x00"}},
    ["a lone surrogate \ud800 from a seed's escape", 1],
    [1.5, 1e16, -0.0, 5e-324],
]


@pytest.mark.parametrize("value", VALUES)
def test_what_is_written_reads_back_as_it_was(value: object) -> None:
    assert loads_checked(dumps(value)) == value


def test_an_integer_past_64_bits_is_written_by_json() -> None:
    """orjson refuses to write it (and would read it back as a float: no cache holds one)."""
    value = {"past 64 bits": 3**50}
    assert loads(dumps(value)) == value and json.loads(dumps(value)) == value


@pytest.mark.parametrize(
    "data",
    [b'{"a": 1, "a": 2}', b'"\\ud800 and \\ud800"', json.dumps({"utf": "16 é"}).encode("utf-16"), b"[1e400]"],
)
def test_reads_what_json_reads(data: bytes) -> None:
    assert repr(loads_checked(data)) == repr(json.loads(data))


@pytest.mark.parametrize("data", [b"not json", b"[" * 100_000, b'{"a":', b"[NaN]"[:3]])
def test_bad_json_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):
        loads_checked(data)


EVERY_CHARACTER = "".join(chr(n) for n in [*range(0xD800), *range(0xE000, 0x110000, 7)])
ITEMS = [
    {"z": 1, "a": [True, None, "x"], "é": {"ü": -(2**63), "b": ("tuple", 2**64 - 1)}},
    {"title": EVERY_CHARACTER, "Ω": Markup("<b>&</b>"), "\x7f": "\u2028"},
    {"impact": {"fwci": 1e-07, "share": 0.1, "count": 3}},  # floats: json's text
    {"past 64 bits": 3**50, "lone": "\ud800"},
    {2: "number keys, which json writes as text", 1: "b"},
]


@pytest.mark.parametrize("item", ITEMS)
def test_sorted_text_is_what_json_writes(item: object) -> None:
    assert sorted_text(item) == json.dumps(item, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def test_data_without_floats_is_written_by_orjson() -> None:
    assert written_alike(ITEMS[0]) and written_alike(ITEMS[1])
    assert not written_alike(ITEMS[2]) and not written_alike(ITEMS[4])
