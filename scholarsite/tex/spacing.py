"""The thin spaces TeX puts around operator names (`\\log`, `\\sin`, `\\operatorname{Gr}`).

latex2mathml writes `n \\log n` as `<mi>n</mi><mi>log</mi><mi>n</mi>`, which browsers set as
"nlogn", and `\\operatorname{Gr}` as an `<mo>` that MathML Core gives thick spaces on both
sides whatever its neighbours. TeX puts a thin space between an operator name and an ordinary
atom on either side of it, another operator name, or a closing fence before it, and none
before a fence after it (`\\log(n)`, `(\\log)`); a medium space on either side of `\\bmod`.
`<mspace>` elements say so here, in the MathML and, as spaces, in the plain text made from it
("O(n log n)").
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

THIN_SPACE = "0.1667em"
MEDIUM_SPACE = "0.2222em"
_ROWS = frozenset({"math", "mrow", "mstyle", "mtd", "msqrt", "mpadded", "mphantom", "menclose"})
_SCRIPTED = frozenset({"msub", "msup", "msubsup", "munder", "mover", "munderover"})
_OPENING = frozenset("([{⟨⌈⌊")
_CLOSING = frozenset(")]}⟩⌉⌋")
_BINARY_WORDS = frozenset({"mod"})  # \bmod: a binary operator, with medium spaces


def space_operator_names(root: Element) -> None:
    """Insert TeX's thin spaces around every operator name under ``root``, in place (its
    token texts decoded: `θ`, not `&#x003B8;`)."""
    for element in list(root.iter()):
        if element.tag == "mo" and (_is_name(element) or element.text in _BINARY_WORDS):
            element.set("lspace", "0")  # the spaces come from the neighbours, as in TeX
            element.set("rspace", "0")
        if element.tag in _ROWS and len(element) > 1:
            _space_row(element)


def _space_row(row: Element) -> None:
    """Thin spaces between the children of one row where TeX puts them."""
    children = list(row)
    kinds = [_kind(child) for child in children]
    spaced: list[Element] = [children[0]]
    for index in range(1, len(children)):
        width = _space(kinds[index - 1], kinds[index])
        if width:
            spaced.append(Element("mspace", {"width": width}))
        spaced.append(children[index])
    if len(spaced) > len(children):
        row[:] = spaced


def _space(left: str, right: str) -> str | None:
    """The space TeX puts between two neighbours of these kinds, where this module decides it."""
    if "other" not in (left, right) and "binary" in (left, right):
        return MEDIUM_SPACE
    if (left == "name" and right in ("ord", "name")) or (right == "name" and left in ("ord", "close")):
        return THIN_SPACE
    return None


def _kind(element: Element) -> str:
    """TeX's class of an element: "name" (an operator name, with its scripts), "binary" (`mod`),
    "open", "close", "ord" (letters, numbers, groups, fractions...) or "other" (other operators,
    spaces)."""
    if element.tag in _SCRIPTED:
        return "name" if _is_name(element[0]) else "ord"
    if _is_name(element):
        return "name"
    if element.tag == "mo":
        text = (element.text or "").strip()
        if text in _BINARY_WORDS:
            return "binary"
        return "open" if text in _OPENING else "close" if text in _CLOSING else "other"
    return "other" if element.tag == "mspace" else "ord"


def _is_name(element: Element) -> bool:
    """An operator name: a word as `<mi>` (`log`) or letters as `<mo>` (`Gr`, `lim`, `arg min`);
    an unknown macro (`\\sbp`) is none."""
    text = element.text or ""
    if element.tag not in ("mi", "mo") or text.startswith("\\") or text in _BINARY_WORDS:
        return False
    return any(char.isalpha() for char in text) and (element.tag == "mo" or len(text) > 1)
