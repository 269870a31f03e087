"""Styled math letters (``\\mathbf``, ``\\mathbb``, ...) as Unicode Mathematical Alphanumerics.

latex2mathml styles letters with ``mathvariant``, which MathML Core (Chromium) ignores
except for "normal". The letters are therefore written as the styled characters of the
U+1D400 block instead; the block has holes where a letterlike symbol (U+2100 block) was
encoded first, e.g. script B is U+212C and double-struck R is U+211D.
"""

from __future__ import annotations

from string import ascii_lowercase, ascii_uppercase, digits

# fmt: off
_LATIN = {  # variant -> code point of its capital A (small a follows 26 later)
    "bold": 0x1D400, "italic": 0x1D434, "bold-italic": 0x1D468, "script": 0x1D49C,
    "bold-script": 0x1D4D0, "fraktur": 0x1D504, "double-struck": 0x1D538,
    "bold-fraktur": 0x1D56C, "sans-serif": 0x1D5A0, "bold-sans-serif": 0x1D5D4,
    "sans-serif-italic": 0x1D608, "sans-serif-bold-italic": 0x1D63C, "monospace": 0x1D670,
}
_DIGITS = {  # variant -> code point of its 0
    "bold": 0x1D7CE, "double-struck": 0x1D7D8, "sans-serif": 0x1D7E2,
    "bold-sans-serif": 0x1D7EC, "monospace": 0x1D7F6,
}
_GREEK = {  # variant -> code point of its capital Alpha, in the order of _GREEK_LETTERS
    "bold": 0x1D6A8, "italic": 0x1D6E2, "bold-italic": 0x1D71C, "bold-sans-serif": 0x1D756,
    "sans-serif-bold-italic": 0x1D790,
}
_GREEK_LETTERS = "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡϴΣΤΥΦΧΨΩ∇αβγδεζηθικλμνξοπρςστυφχψω∂ϵϑϰϕϱϖ"
_LETTERLIKE = {  # the holes of the block: (variant, letter) -> the character used instead
    ("italic", "h"): "\u210e",
    ("script", "B"): "\u212c", ("script", "E"): "\u2130", ("script", "F"): "\u2131",
    ("script", "H"): "\u210b", ("script", "I"): "\u2110", ("script", "L"): "\u2112",
    ("script", "M"): "\u2133", ("script", "R"): "\u211b", ("script", "e"): "\u212f",
    ("script", "g"): "\u210a", ("script", "o"): "\u2134",
    ("fraktur", "C"): "\u212d", ("fraktur", "H"): "\u210c", ("fraktur", "I"): "\u2111",
    ("fraktur", "R"): "\u211c", ("fraktur", "Z"): "\u2128",
    ("double-struck", "C"): "\u2102", ("double-struck", "H"): "\u210d",
    ("double-struck", "N"): "\u2115", ("double-struck", "P"): "\u2119",
    ("double-struck", "Q"): "\u211a", ("double-struck", "R"): "\u211d",
    ("double-struck", "Z"): "\u2124",
}
# fmt: on
_LATIN_LETTERS = ascii_uppercase + ascii_lowercase


def _alphabet(variant: str) -> dict[str, str]:
    """Plain character -> styled character for one mathvariant."""
    table: dict[str, str] = {}
    for letters, starts in ((_LATIN_LETTERS, _LATIN), (digits, _DIGITS), (_GREEK_LETTERS, _GREEK)):
        if variant in starts:
            table |= {char: chr(starts[variant] + i) for i, char in enumerate(letters)}
    return table | {char: styled for (name, char), styled in _LETTERLIKE.items() if name == variant}


STYLED: dict[str, dict[str, str]] = {variant: _alphabet(variant) for variant in _LATIN}
UNSTYLE: dict[int, str] = {ord(char): plain for table in STYLED.values() for plain, char in table.items()}


def styled(text: str, variant: str) -> str | None:
    """``text`` in the styled letters of ``variant``; None unless every character has one."""
    table = STYLED.get(variant)
    if not table or not text or any(char not in table for char in text):
        return None
    return "".join(table[char] for char in text)
