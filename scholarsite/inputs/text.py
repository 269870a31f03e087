"""Reading the project's text files: UTF-8 without byte-order mark, and no control characters.

Control characters (C0 and C1, DEL, apart from tab and line breaks) never reach a page, a
feed, a citation file or the terminal: they are removed here, before anything else sees the
text, with one warning per line that had any.
"""

from __future__ import annotations

import re

from scholarsite.errors import Diagnostic, error, warning

CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Bytes of UTF-8 text that cannot be part of a control character: tab, line breaks, printable
# ASCII, and every byte from 0x80 but 0xC2 (the lead of U+0080-U+009F). A text of these only
# is not searched (0.03 s for 100 MB, where the search takes 0.2 s).
NO_CONTROL = bytes([9, 10, 13, *range(32, 127), *(byte for byte in range(128, 256) if byte != 0xC2)])


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
    if not data.translate(None, NO_CONTROL):
        return text, []
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
