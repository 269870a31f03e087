"""The quick block-YAML reader (issue 28.3): whatever it takes, it reads as PyYAML's safe loader
does, with the line of each key; what it does not take, it leaves to the loader."""

from __future__ import annotations

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite.errors import BuildError
from scholarsite.inputs import blockyaml
from scholarsite.inputs.blockyaml import Unsupported, clean, entries_under, scalar, typed
from scholarsite.inputs.sources import DUMPER
from scholarsite.inputs.yamlmap import read_settings

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=150)
SCALARS = (
    TEXT
    | st.sampled_from(
        ["yes", "~", "null", "2025-02-27", "0x1F", "1_000", "-1.5e3", ".inf", "<<", "=", "0o17"]
    )
    | st.integers(-(10**20), 10**20)
    | st.booleans()
    | st.dates(datetime.date(1, 1, 1))
    | st.floats(allow_nan=False)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12) | st.integers(), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = st.text(max_size=140).filter(str.strip)


def loaded(text: str) -> dict | None:
    """What the careful reader (`yamlmap.read_settings`) makes of the `papers:` mapping, with
    each key's line; None when it refuses the text."""
    lines: dict[str, dict[str, int]] = {}
    try:
        settings = read_settings(text, "sources.yaml", key_lines=lines)
    except BuildError:
        return None
    if [setting.key for setting in settings] != ["papers"] or not isinstance(settings[0].value, dict):
        return None
    return {key: (value, lines["papers"][key]) for key, value in settings[0].value.items()}


def dumped(papers: dict) -> str:
    """The text `dump_sources` would write for these entries."""
    return "# a comment\n" + yaml.dump(
        {"papers": papers}, Dumper=DUMPER, allow_unicode=True, sort_keys=False, width=100
    )


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(
        KEYS, st.dictionaries(st.text(max_size=12), VALUES, min_size=1, max_size=6), min_size=1, max_size=5
    )
)
def test_what_the_dumper_writes_reads_as_the_safe_loader_reads_it(papers: dict) -> None:
    text = dumped(papers)
    found = entries_under(text, "papers", "sources.yaml")
    assert found is None or found == loaded(text)


def test_the_files_link_sources_writes_are_taken() -> None:
    papers = {
        f"2025/paper {n}": {
            "status": "found",
            "title": f"A Study: {n} 'quoted' # not a comment " + "long " * 30,
            "checked": "2026-12-01",
            "version": 2,
            "authors": ["Zoë Ñandú", "Ada Lovelace"],
            "candidates": [{"arxiv_id": "2502.00001", "title": "Other"}],
            "openalex": {
                "status": "found",
                "counts": {2024: 3},
                "references": " ".join(["W4392345678"] * 30),
            },
        }
        for n in range(3)
    }
    text = dumped(papers)
    assert entries_under(text, "papers", "sources.yaml") == loaded(text)


def test_flat_entries_are_read_by_expressions_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entries of `key: value` lines (the lean entries of a large file) are read without a
    `Block` of lines, as the safe loader reads them: quotes, colons, types, lines."""
    papers = {
        f"2025/paper {n}": {
            "status": "found",
            "title": f"A Study: {n} 'quoted' # not a comment, it's",
            "checked": "2026-12-01",
            "version": 2,
            "doi": "10.1145/3620666.3651379",
            "locked": n % 2 == 0,
            "note": "~" if n else "yes",
        }
        for n in range(3)
    }
    text = dumped(papers)
    monkeypatch.setattr(blockyaml, "Block", None)  # any entry read by a Block fails
    found = entries_under(text, "papers", "sources.yaml")
    assert found == loaded(text) and found["2025/paper 1"][1] == 11


# Texts near what YAML's implicit resolvers match: numbers, dates, times, booleans, nulls.
NEAR_TYPED = st.from_regex(r"[-+0-9._:eExXoObBa-fA-FyYnNtTsSrRuUlLiI~ <>=]{0,14}", fullmatch=True)
TIMESTAMPS = st.from_regex(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ][0-9:. Zz+-]{0,14})?", fullmatch=True)


@settings(max_examples=1500, deadline=None)
@given(NEAR_TYPED | TIMESTAMPS | TEXT)
def test_plain_scalars_are_typed_as_the_resolver_types_them(text: str) -> None:
    """`scalar` rules out PyYAML's resolver for most text; what it makes is what the resolver
    and constructors (`typed`) make."""
    try:
        expected = typed(text)
    except Unsupported:
        expected = Unsupported
    try:
        found = scalar(text)
    except Unsupported:
        found = Unsupported
    assert repr(found) == repr(expected) and type(found) is type(expected)  # repr: nan


PIECES = [*" \n-:'\"#ab1?&*[]{}|>!\t\\", "\n  ", "\n    ", "\n      ", "x: ", "- ", "y:", "2025"]
HANDWRITTEN = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=1500, deadline=None)
@given(HANDWRITTEN)
def test_text_it_takes_is_yaml_it_reads_alike(body: str) -> None:
    text = "papers:\n  k:\n" + body
    found = entries_under(text, "papers", "sources.yaml")
    assert found is None or found == loaded(text)


def test_it_leaves_what_it_does_not_take() -> None:
    for body in (
        "  k: &a x\n  j: *a\n",  # an alias across entries
        "  k:\n    a: 1\n  k:\n    a: 2\n",  # a key given twice
        "  k:\n    title: 'open\n  j: x'\n",  # a quote going on at column 2
        "  k:\n    a: x\r\n",
        "  k:\n  !\nx: ",  # read alone, YAML reads these as it does not in the file
        "  k:\n  !\n    x: ",
    ):
        assert entries_under("papers:\n" + body, "papers", "sources.yaml") is None, body
    assert entries_under("other:\n  k: 1\n", "papers", "sources.yaml") is None
    assert entries_under("papers:\nother: 1\n", "papers", "sources.yaml") is None
    # an entry it does not take is read alone by the loader
    assert entries_under("papers:\n  k:\n    a: [1, 2]\n  j: {b: 1}\n", "papers", "s") == {
        "k": ({"a": [1, 2]}, 2),
        "j": ({"b": 1}, 4),
    }


def test_characters_yaml_refuses_or_breaks_lines_at_are_left_to_the_loader() -> None:
    for char in "\t\r\x85\u2028\u2029\ufeff\x7f\x80\x9f\x00\x1b\ud800\udc80\ufffe\uffff":
        assert not clean(f"papers:\n  a: x{char}y\n"), repr(char)
    for char in "é—中🙂\xa0\ud7a3©":
        assert clean(f"papers:\n  a: x{char}y\n"), repr(char)
