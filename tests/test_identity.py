"""Identity normalisation and slugs: valid, stable, non-empty, unique per identity."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from scholarsite.inputs.memo import Memo
from scholarsite.inputs.unicode import normalise
from scholarsite.model.identity import MAX_SLUG, slug_for, title_slug
from scholarsite.model.naming import remembered
from scholarsite.tex.render import tex_to_plain

SLUG_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


def test_normalise_folds_case_accents_punctuation_and_spacing() -> None:
    assert normalise("  Comet: Fine-grained   OVERLAPPING!") == "comet fine grained overlapping"
    assert normalise("José García") == normalise("JOSE  GARCIA")
    assert normalise("ﬁne") == "fine"  # NFKC ligature


def test_symbol_only_text_keeps_an_identity() -> None:
    assert normalise("∑") != normalise("∏")
    assert normalise("∑") != ""


def test_plain_titles_give_readable_slugs() -> None:
    assert slug_for(normalise("Comet: Fine-grained Computation-communication Overlapping")) == (
        "comet-fine-grained-computation-communication-overlapping"
    )
    assert slug_for(normalise("Ziheng Jiang")) == "ziheng-jiang"


def test_non_latin_and_long_titles_get_a_hash_suffix() -> None:
    slug = slug_for(normalise("张伟"))
    assert re.fullmatch(r"zhang-wei-[0-9a-f]{8}", slug)
    long = slug_for(normalise("word " * 40))
    assert len(long) <= MAX_SLUG and re.search(r"-[0-9a-f]{8}$", long)


def test_transliteration_collisions_stay_distinct() -> None:
    # "Über" folds to "uber" (same identity as "Uber": one paper), but Cyrillic does not.
    assert slug_for(normalise("Über alles")) == slug_for(normalise("Uber alles"))
    assert slug_for(normalise("Мир")) != slug_for(normalise("Mir"))


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=300))
def test_slugs_are_valid_stable_and_non_empty(title: str) -> None:
    slug = slug_for(normalise(title))
    assert SLUG_RE.fullmatch(slug), slug
    assert 0 < len(slug) <= MAX_SLUG
    assert slug == slug_for(normalise(title))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=80))
def test_distinct_identities_get_distinct_slugs(a: str, b: str) -> None:
    if normalise(a) != normalise(b):
        assert slug_for(normalise(a)) != slug_for(normalise(b))


@given(st.text(max_size=40), st.text(max_size=40), st.sampled_from(["author", "paper", "item"]))
def test_a_remembered_naming_names_as_a_fresh_one(identity: str, shown: str, fallback: str) -> None:
    """Slugs and plain titles kept in the memo are those made afresh, asked once or again, by
    a build with the memo saved (any text: the memo's key holds both of a title slug's parts)."""
    memo = Memo()
    for naming in (remembered(memo), remembered(memo)):
        assert naming.slug(identity, fallback) == slug_for(identity, fallback)
        assert naming.title_slug(identity, shown) == title_slug(identity, shown)
        assert naming.plain_title(shown) == tex_to_plain(shown)
    assert len(memo.entries) == 3
