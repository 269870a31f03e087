"""How problems are reported: diagnostics with file, line, severity, message and hint."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

UNPRINTABLE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]|\n(?![ \t])")  # a line feed only before an indent
CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f]")


class Severity(StrEnum):
    """How bad a diagnostic is; errors fail the build, notes never do."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem found in one input file, at one line (0 when it concerns the whole file)."""

    path: str
    line: int
    severity: Severity
    message: str
    hint: str = ""

    def format(self) -> str:
        """`seeds/x.txt:42: error: message (hint)` as printed to the terminal; control
        characters (from a file name, say) are shown as `\\x1b`, never sent to the terminal, and
        a file name's line feed too, so no name can print a line of its own."""
        path = CONTROL_RE.sub(escaped, self.path)
        where = f"{path}:{self.line}" if self.line else path
        text = f"{where}: {self.severity.value}: {self.message}"
        return printable(f"{text}\n    hint: {self.hint}" if self.hint else text)

    def as_dict(self) -> dict[str, object]:
        """Plain data for `--json` output."""
        return {
            "path": self.path,
            "line": self.line,
            "severity": self.severity.value,
            "message": self.message,
            "hint": self.hint,
        }


# Notes that a collection repeats on every build, named once with their count (`--verbose`
# lists them): the first pattern matching a note's message names its kind.
NOTE_KINDS = (
    (re.compile(r"TeX: unknown macro"), "unknown TeX macros shown as source"),
    (
        re.compile(r"TeX: math .* could not be converted"),
        "TeX math that could not be converted, shown as source",
    ),
    (re.compile(r"TeX: "), "other TeX kept as source"),
)
QUOTED_RE = re.compile(r"'[^']*'")
MANY_NOTES = 3  # more notes of one kind than this are said as one line


def note_kind(message: str) -> str:
    """What a note is about, without its particulars: 'unknown TeX macros shown as source',
    or the message with its quoted parts elided."""
    for pattern, kind in NOTE_KINDS:
        if pattern.match(message):
            return kind
    return QUOTED_RE.sub("'…'", message)


def summarised(diagnostics: Iterable[Diagnostic], verbose: bool = False) -> list[str]:
    """The lines that report `diagnostics`, sorted by file and line: every error and warning,
    and every note unless more than MANY_NOTES are of one kind, which are said once with their
    count after the rest (all of them when `verbose`)."""
    ordered = sorted(diagnostics)
    kinds: dict[str, int] = {}
    for diagnostic in ordered if not verbose else ():
        if diagnostic.severity is Severity.NOTE:
            kind = note_kind(diagnostic.message)
            kinds[kind] = kinds.get(kind, 0) + 1
    many = {kind for kind, number in kinds.items() if number > MANY_NOTES}
    lines = [
        d.format()
        for d in ordered
        if not (d.severity is Severity.NOTE and many and note_kind(d.message) in many)
    ]
    return lines + [
        f"{kinds[kind]} notes: {kind}; scholarsite check --verbose lists them" for kind in sorted(many)
    ]


def printable(text: str) -> str:
    """`text` with control characters as `\\xNN` escapes, but tabs and the line feeds that start
    an indented line (a hint): no part of a message can pass for a diagnostic line of its own."""
    return UNPRINTABLE_RE.sub(escaped, text)


def escaped(match: re.Match[str]) -> str:
    """A control character as `\\xNN`."""
    return f"\\x{ord(match.group()):02x}"


def error(path: str, line: int, message: str, hint: str = "") -> Diagnostic:
    """Shorthand for an error diagnostic."""
    return Diagnostic(path, line, Severity.ERROR, message, hint)


def warning(path: str, line: int, message: str, hint: str = "") -> Diagnostic:
    """Shorthand for a warning diagnostic."""
    return Diagnostic(path, line, Severity.WARNING, message, hint)


def note(path: str, line: int, message: str, hint: str = "") -> Diagnostic:
    """Shorthand for a note (informational, never fails a build)."""
    return Diagnostic(path, line, Severity.NOTE, message, hint)


def fails(diagnostics: Iterable[Diagnostic], strict: bool) -> bool:
    """Errors always fail a build; warnings fail it under --strict."""
    failing = {Severity.ERROR, Severity.WARNING} if strict else {Severity.ERROR}
    return any(d.severity in failing for d in diagnostics)


def count(diagnostics: Iterable[Diagnostic], severity: Severity) -> int:
    """How many diagnostics have the given severity."""
    return sum(1 for d in diagnostics if d.severity is severity)


class BuildError(Exception):
    """A user mistake that stops the build; carries every diagnostic found so far."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = tuple(sorted(diagnostics))
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    def __reduce__(self) -> tuple[type[BuildError], tuple[tuple[Diagnostic, ...]]]:
        """Pickle by diagnostics (a worker process raises it to the build)."""
        return BuildError, (self.diagnostics,)
