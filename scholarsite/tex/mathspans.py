"""Math in TeX text as parsing needs it: where its spans are (`find_math`), the characters no
page may hold, and the MathML elements and attributes a page may have. Converting the math
(:mod:`scholarsite.tex.mathml`, with nh3 and latex2mathml) is loaded only when math is rendered.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

MATHML_TAGS = frozenset({
    "math", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msup", "msub", "msubsup",
    "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "semantics", "annotation",
})  # fmt: skip
MATHML_ATTRIBUTES = frozenset({
    "display", "xmlns", "mathvariant", "mathsize", "stretchy", "fence", "separator", "form",
    "largeop", "movablelimits", "minsize", "maxsize", "lspace", "rspace", "accent",
    "accentunder", "columnalign", "columnlines", "rowlines", "columnspacing", "rowspacing",
    "width", "height", "depth", "voffset", "notation", "displaystyle", "scriptlevel",
    "linethickness", "linebreak",
})  # fmt: skip
_FORBIDDEN_BMP = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
_ASTRAL_NONCHARACTERS = (chr(plane << 16 | low) for plane in range(1, 17) for low in (0xFFFE, 0xFFFF))
_FORBIDDEN_ASTRAL = re.compile("[" + "".join(_ASTRAL_NONCHARACTERS) + "]")
_DELIMITER = re.compile(r"\\[\\$()\[\]]|\$")


@dataclass(frozen=True)
class MathSpan:
    """A math span of the source: ``text[start:end]`` with delimiters, ``body`` without."""

    start: int
    end: int
    body: str
    display: bool


def remove_forbidden_chars(text: str) -> str:
    """Drop control characters, surrogates and noncharacters, which HTML and UTF-8 reject."""
    text = _FORBIDDEN_BMP.sub("", text)
    if text.isascii() or max(text) <= "\uffff":
        return text
    return _FORBIDDEN_ASTRAL.sub("", text)


def find_math(text: str) -> tuple[list[MathSpan], list[str]]:
    """Locate ``$..$``, ``\\(..\\)`` (inline) and ``$$..$$``, ``\\[..\\]`` (display) math.

    Escaped ``\\$`` is a dollar sign; unmatched openers stay literal text and are reported.
    Linear apart from a binary search per opener, whatever the input.
    """
    tokens = [(m.start(), m.group()) for m in _DELIMITER.finditer(text)]
    tokens = [(pos, token) for pos, token in tokens if token not in ("\\\\", "\\$")]
    dollars = [pos for pos, token in tokens if token == "$"]
    dollar_set = set(dollars)
    closers = {
        "$": dollars,
        "$$": [pos for pos in dollars if pos + 1 in dollar_set],
        "\\(": [pos for pos, token in tokens if token == "\\)"],
        "\\[": [pos for pos, token in tokens if token == "\\]"],
    }
    spans: list[MathSpan] = []
    problems: list[str] = []
    cursor = 0
    for pos, token in tokens:
        if pos < cursor:
            continue
        if token in ("\\)", "\\]"):
            problems.append(f"stray {token!r} at offset {pos} outside math")
            continue
        opener = "$$" if token == "$" and pos + 1 in dollar_set else token
        span = _close(text, pos, opener, closers[opener])
        if span is None:
            problems.append(_unmatched_message(opener, pos))
            cursor = pos + len(opener)
        else:
            spans.append(span)
            cursor = span.end
    return spans, problems


def _close(text: str, start: int, opener: str, closer_positions: list[int]) -> MathSpan | None:
    """The span from ``opener`` at ``start`` to its first closer, if there is one."""
    body_start = start + len(opener)
    index = bisect_left(closer_positions, body_start)
    if index == len(closer_positions):
        return None
    body_end = closer_positions[index]
    end = body_end + (1 if opener == "$" else 2)
    return MathSpan(start, end, text[body_start:body_end], display=opener in ("$$", "\\["))


def _unmatched_message(opener: str, pos: int) -> str:
    """Human-readable diagnostic for an opener without a closer."""
    if opener == "$":
        return f"unbalanced '$' (odd number of unescaped dollar signs; unmatched at offset {pos})"
    return f"unmatched {opener!r} at offset {pos}"
