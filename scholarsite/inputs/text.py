"""Reading the project's text files: UTF-8 without byte-order mark, and no control characters.

Control characters (C0 and C1, DEL, apart from tab and line breaks) never reach a page, a
feed, a citation file or the terminal: they are removed here, before anything else sees the
text, with one warning per line that had any.
"""

from __future__ import annotations

import re

from scholarsite.errors import Diagnostic, error, warning

CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def decode(data: bytes, path: str) -> tuple[str | None, list[Diagnostic]]:
    """UTF-8 text without byte-order mark and control characters, or an error naming the line
    of the first bad byte; warnings name each line whose control characters were removed."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        bad = data[exc.start : exc.start + 1].hex()
        message = f"not UTF-8: invalid byte 0x{bad} at column {column}"
        return None, [error(path, line, message, "save the file as UTF-8")]
    return remove_controls(text, path)


def remove_controls(text: str, path: str) -> tuple[str, list[Diagnostic]]:
    """`text` without control characters, and a warning for each line that had some."""
    if not CONTROL_RE.search(text):
        return text, []
    lines = text.split("\n")
    problems: list[Diagnostic] = []
    for number, line in enumerate(lines, start=1):
        found = sorted(set(CONTROL_RE.findall(line)))
        if found:
            codes = ", ".join(f"U+{ord(char):04X}" for char in found)
            problems.append(warning(path, number, f"removed control character(s) {codes}"))
            lines[number - 1] = CONTROL_RE.sub("", line)
    return "\n".join(lines), problems
