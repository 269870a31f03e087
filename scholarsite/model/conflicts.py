"""Notes on papers whose seeds give them different abstracts, naming every record that does."""

from __future__ import annotations

import weakref
from collections.abc import Iterable

from scholarsite.errors import Diagnostic, note
from scholarsite.inputs.seeds import shorten
from scholarsite.model.model import AbstractVersion, Paper, Provenance, shown_version

RULE = "the longest abstract is shown (of equally long ones, the first in alphabetical order)"


def place(where: Provenance) -> str:
    """`seeds/x.txt:12`."""
    return f"{where.path}:{where.line}"


def others(paper: Paper) -> list[AbstractVersion]:
    """The abstracts of a paper that it does not show."""
    shown = shown_version(paper.versions)
    return [version for version in paper.versions if version is not shown]


NOTED: weakref.WeakKeyDictionary[Paper, Diagnostic] = weakref.WeakKeyDictionary()


def abstract_notes(contested: Iterable[Paper]) -> list[Diagnostic]:
    """A note per paper given more than one abstract (`Site.contested`), at the record whose
    abstract is shown (remembered while the paper lives: a paper is never changed once made)."""
    notes = []
    for paper in contested:
        if (known := NOTED.get(paper)) is not None:
            notes.append(known)
            continue
        shown = shown_version(paper.versions).where
        elsewhere = ", ".join(place(version.where) for version in others(paper))
        message = (
            f"'{shorten(paper.title)}' ({paper.year}) has another abstract in {elsewhere}; "
            "this record's is shown"
        )
        notes.append(NOTED.setdefault(paper, note(shown.path, shown.line, message, RULE)))
    return notes
