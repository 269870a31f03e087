"""Math in TeX text turned into safe MathML or plain text (its spans are found by
:mod:`scholarsite.tex.mathspans`; this module is loaded only where math is rendered).

latex2mathml copies ``\\text{...}`` into its output unescaped, so its serialised string is
never used: its element tree is re-serialised here through allowlists (elements, attributes,
attribute values), with every text node escaped, and the result is passed through nh3 as a
second line of defence. Styled letters (``\\mathbf{x}``, ``\\mathbb R``) are written as Unicode
Mathematical Alphanumerics rather than ``mathvariant``, which MathML Core ignores. The shorthands
of math papers (``\\CC``, ``\\Gr``: :mod:`scholarsite.tex.conventions`) are expanded first; a
macro still unknown is shown as its TeX source, ``<mtext class="tex">``, in a formula otherwise
rendered; operator names get TeX's spacing (:mod:`scholarsite.tex.spacing`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from xml.etree.ElementTree import Element

import nh3

from scholarsite.tex.alphabets import UNSTYLE, styled
from scholarsite.tex.conventions import expand
from scholarsite.tex.mathspans import MATHML_ATTRIBUTES, MATHML_TAGS, remove_forbidden_chars
from scholarsite.tex.spacing import space_operator_names

_LENGTH_ATTRIBUTES = frozenset({
    "width", "height", "depth", "voffset", "lspace", "rspace", "minsize", "maxsize", "mathsize",
})  # fmt: skip
_LENGTH_VALUE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:em|ex|px|in|cm|mm|pt|pc|%)?")
_WORDS_VALUE = re.compile(r"[A-Za-z0-9:/.-]+(?: [A-Za-z0-9:/.-]+)*")
_NH3_ATTRIBUTES = {tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS}
SOURCE_CLASS = "tex"  # the class of an unknown macro's TeX source, as in `<code class="tex">`
_NH3_CLASSES = {"mtext": {SOURCE_CLASS}}
_UNKNOWN_MACRO = re.compile(r"\\[A-Za-z]+")  # what latex2mathml leaves of a macro it doesn't know
_TOKEN_TAGS = frozenset({"mi", "mn", "mo", "ms", "mtext"})
_ARITY = {"msup": 2, "msub": 2, "mfrac": 2, "mroot": 2, "mover": 2, "munder": 2}
_ARITY |= {"msubsup": 3, "munderover": 3}
_SCRIPT_SLOTS = {  # element -> (index of subscript, index of superscript)
    "msup": (None, 1), "mover": (None, 1), "msub": (1, None), "munder": (1, None),
    "msubsup": (1, 2), "munderover": (1, 2),
}  # fmt: skip
_CHAR_REF = re.compile(r"&#x([0-9A-Fa-f]{1,6});")
_TEXT_ESCAPE = re.compile(r"\\([%&$#_{} ])")
_MACRO_DEFINITION = re.compile(
    r"\\(?:[egx]?def|let|(?:re|provide)?newcommand|DeclareMathOperator)(?![A-Za-z])"
)
_PRIMES = "\u2032\u2033\u2034"
_SUPERSCRIPTS = dict(zip("0123456789+-\u2212=()ni" + _PRIMES, "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ" + _PRIMES, strict=True))
_SUBSCRIPTS = dict(zip("0123456789+-\u2212=()aeoxhklmnpst", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜ", strict=True))
_SIMPLE = re.compile(r"[\w.]+")
_STYLED_TAGS = frozenset({"mi", "mn", "mo"})
_BARE_PERCENT = re.compile(r"(?<!\\)((?:\\\\)*)%")  # in metadata a % is a percent sign, not a comment
# latex2mathml styles a braced single letter from its own table, which has gaps and errors
# (\mathrm{d} italic, \mathsf{E} as U+22FF, \mathsf{1} plain); {\mathsf E} takes the usual path.
_FONT_LETTER = re.compile(
    r"\\(math(?:rm|bf|it|sf|tt|cal|scr|frak|bb)|boldsymbol|bm)\s*\{\s*([A-Za-z0-9])\s*\}"
)


class _Rejected(ValueError):
    """Converter output that is unsafe, invalid HTML, or hides an unknown command."""


@dataclass(frozen=True)
class ConvertedMath:
    """Sanitised MathML markup and a plain-text rendering of one math span, and the unknown
    macros shown in it as TeX source."""

    html: str
    plain: str
    unknown: tuple[str, ...] = ()


@lru_cache(maxsize=16384)
def convert_math(body: str, display: bool) -> ConvertedMath | None:
    """Sanitised MathML and plain text for one math body; None when it can't be converted."""
    if _MACRO_DEFINITION.search(body):  # macro expansion could blow up; never needed here
        return None
    from latex2mathml.converter import convert_to_element  # loaded by the first math converted

    try:
        root = convert_to_element(_prepare(body), display="block" if display else "inline")
        unknown = _decode(root)
        space_operator_names(root)
        markup: list[str] = []
        _serialize(root, markup)
        plain = _plain(root).strip()
    except Exception:  # noqa: BLE001 - latex2mathml raises many types on malformed TeX
        return None
    html = nh3.clean(
        "".join(markup),
        tags=set(MATHML_TAGS),
        attributes=_NH3_ATTRIBUTES,
        allowed_classes=_NH3_CLASSES,
        link_rel=None,
    )
    return ConvertedMath(html, plain, tuple(dict.fromkeys(unknown)))


def _prepare(body: str) -> str:
    """The math body as latex2mathml should see it: ``%`` escaped, shorthands expanded,
    ``\\mathsf{E}`` as ``{\\mathsf E}``."""
    if "%" in body:
        body = _BARE_PERCENT.sub(r"\1\\%", body)
    body = expand(body)
    return _FONT_LETTER.sub(r"{\\\1 \2}", body) if "{" in body else body


def _decode(root: Element) -> list[str]:
    """Decode every text of the tree in place (character references, ``\\%`` in text), and
    mark each token that is an unknown macro as TeX source; return those macros.

    Raise _Rejected for any other TeX left in a text."""
    unknown: list[str] = []
    for parent in root.iter():
        for child in parent:
            child.tail = _text(child.tail, parent.tag)
        if parent.tag in _TOKEN_TAGS and _UNKNOWN_MACRO.fullmatch(parent.text or ""):
            unknown.append(str(parent.text))
            parent.tag, parent.attrib = "mtext", {"class": SOURCE_CLASS}
        else:
            parent.text = _text(parent.text, parent.tag)
    return unknown


def _serialize(element: Element, out: list[str]) -> None:
    """Append allowlisted, escaped markup for ``element``; raise _Rejected otherwise."""
    tag = element.tag
    children = list(element)
    if tag not in MATHML_TAGS:
        raise _Rejected(f"element {tag!r}")
    if (tag in _TOKEN_TAGS and children) or _ARITY.get(tag, len(children)) != len(children):
        raise _Rejected(f"malformed {tag!r}")
    text, attrib = _restyle(tag, element.text or "", element.attrib)
    attributes = "".join(
        f' {name}="{escape(value)}"' for name, value in attrib.items() if _keep_attribute(tag, name, value)
    )
    out.append(f"<{tag}{attributes}>{escape(text, quote=False)}")
    for child in children:
        _serialize(child, out)
        out.append(escape(child.tail or "", quote=False))
    out.append(f"</{tag}>")


def _restyle(tag: str, text: str, attrib: dict[str, str]) -> tuple[str, dict[str, str]]:
    """A token's ``mathvariant`` turned into styled Unicode letters, which MathML Core shows;
    kept (Firefox may still use it) when some character has no styled form."""
    variant = attrib.get("mathvariant")
    if variant is None or tag not in _STYLED_TAGS or (letters := styled(text, variant)) is None:
        return text, attrib
    return letters, {name: value for name, value in attrib.items() if name != "mathvariant"}


def _keep_attribute(tag: str, name: str, value: str) -> bool:
    """Allowlisted attribute with a well-formed value (others are dropped)."""
    if name == "class":
        return tag == "mtext" and value == SOURCE_CLASS
    if name not in MATHML_ATTRIBUTES:
        return False
    pattern = _LENGTH_VALUE if name in _LENGTH_ATTRIBUTES else _WORDS_VALUE
    return pattern.fullmatch(value) is not None


def _text(raw: str | None, tag: str) -> str:
    """One text of latex2mathml's tree, its character references decoded; leftover TeX
    commands rejected."""
    if not raw:
        return ""
    if tag == "mtext":
        raw = _TEXT_ESCAPE.sub(r"\1", raw)
    if "\\" in raw:
        raise _Rejected(f"unconverted TeX in {raw!r}")
    decoded = _CHAR_REF.sub(_decode_reference, raw)
    if remove_forbidden_chars(decoded) != decoded:
        raise _Rejected("forbidden character")
    return decoded


def _decode_reference(match: re.Match[str]) -> str:
    """One ``&#x...;`` reference as its character."""
    code = int(match.group(1), 16)
    if code > 0x10FFFF:
        raise _Rejected(f"bad character reference {match.group()}")
    return chr(code)


def _plain(element: Element) -> str:
    """Readable plain text for a MathML element (x², a/b, √x, ...); styled letters plain."""
    tag = element.tag
    if tag in _TOKEN_TAGS:
        text = element.text or ""
        return text[1:] if element.get("class") == SOURCE_CLASS else text.translate(UNSTYLE)
    parts = [_plain(child) for child in element]
    if tag in _SCRIPT_SLOTS:
        return _plain_scripts(tag, list(element), parts)
    if tag == "mfrac":
        separator = " " if element.get("linethickness") == "0" else "/"
        return _parenthesize(parts[0]) + separator + _parenthesize(parts[1])
    if tag == "msqrt":
        return "√" + _parenthesize("".join(parts))
    if tag == "mroot":
        return _script(parts[1], _SUPERSCRIPTS, "") + "√" + _parenthesize(parts[0])
    if tag == "mspace":
        return " "
    if tag == "mphantom":
        return ""
    return {"mtable": "; ", "mtr": ", "}.get(tag, "").join(parts)


def _plain_scripts(tag: str, children: list[Element], parts: list[str]) -> str:
    """Base followed by sub/superscripts; a bare operator over/under the base is decoration."""
    decorative = tag in ("mover", "munder", "munderover")
    text = parts[0]
    sub, sup = _SCRIPT_SLOTS[tag]
    for index, table, mark in ((sub, _SUBSCRIPTS, "_"), (sup, _SUPERSCRIPTS, "^")):
        if index is not None and not (decorative and children[index].tag == "mo"):
            text += _script(parts[index], table, mark)
    return text


def _script(text: str, table: dict[str, str], mark: str) -> str:
    """Unicode super/subscript characters when all exist, else ``^x`` / ``_(xy)``."""
    if text and all(char in table for char in text):
        return "".join(table[char] for char in text)
    return mark + (text if len(text) <= 1 else f"({text})") if text else ""


def _parenthesize(text: str) -> str:
    """Wrap compound expressions in parentheses."""
    return text if len(text) <= 1 or _SIMPLE.fullmatch(text) else f"({text})"
