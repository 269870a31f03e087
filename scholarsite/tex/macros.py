"""The text-mode macros that titles and abstracts use, and what each one stands for.

Every emitter (HTML, plain text, BibTeX) reads these tables, so a macro means the same on
the page, in search and descriptions, and in the citation files.
"""

from __future__ import annotations

from scholarsite.tex import conventions
from scholarsite.tex.alphabets import styled

# fmt: off
TEXT_SYMBOLS: dict[str, str] = {
    # control symbols
    "%": "%", "&": "&", "$": "$", "#": "#", "_": "_", "{": "{", "}": "}", " ": " ", "\n": " ",
    "\\": " ", ",": "\u202f", ";": " ", ":": " ", "!": "", "-": "", "/": "", "@": "",
    # author abbreviations common in arXiv abstracts
    "eg": "e.g.", "Eg": "E.g.", "ie": "i.e.", "Ie": "I.e.", "etal": "et al.", "etc": "etc.",
    "wrt": "w.r.t.", "vs": "vs.", "cf": "cf.", "Cf": "Cf.",
    # text symbols
    "LaTeX": "LaTeX", "TeX": "TeX", "ldots": "…", "dots": "…", "textellipsis": "…",
    "textendash": "\u2013", "textemdash": "\u2014", "S": "§", "P": "¶", "dag": "†", "ddag": "‡",
    "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^", "textbar": "|",
    "textless": "<", "textgreater": ">", "textbullet": "•", "textdegree": "°",
    "textquoteleft": "\u2018", "textquoteright": "\u2019",
    "textquotedblleft": "\u201c", "textquotedblright": "\u201d",
    "copyright": "©", "textregistered": "®", "texttrademark": "™", "pounds": "£", "euro": "€",
    "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "o": "ø", "O": "Ø", "aa": "å",
    "AA": "Å", "l": "ł", "L": "Ł", "i": "\u0131", "j": "\u0237",
    "newline": " ", "par": " ", "quad": " ", "qquad": " ", "noindent": "", "xspace": "",
    "relax": "", "protect": "", "centering": "",
    "tiny": "", "scriptsize": "", "footnotesize": "", "small": "", "normalsize": "",
    "large": "", "Large": "", "LARGE": "", "huge": "", "Huge": "",
}
# Math-mode symbols that abstracts use outside math ("the \lambda-calculus", "n \times m").
MATH_SYMBOLS: dict[str, str] = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ",
    "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "ϕ",
    "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "cap": "∩", "cup": "∪", "deg": "°", "times": "×", "div": "÷", "pm": "±", "mp": "∓",
    "cdot": "·", "cdots": "⋯", "leq": "≤", "le": "≤", "geq": "≥", "ge": "≥", "neq": "≠",
    "ne": "≠", "ll": "≪", "gg": "≫", "approx": "≈", "sim": "∼", "simeq": "≃", "cong": "≅",
    "equiv": "≡", "propto": "∝", "infty": "∞", "to": "→", "rightarrow": "→",
    "leftarrow": "←", "gets": "←", "Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔",
    "Leftrightarrow": "⇔", "mapsto": "↦", "in": "∈", "notin": "∉", "subset": "⊂",
    "subseteq": "⊆", "supset": "⊃", "supseteq": "⊇", "emptyset": "∅", "varnothing": "∅",
    "forall": "∀", "exists": "∃", "neg": "¬", "wedge": "∧", "vee": "∨", "oplus": "⊕",
    "otimes": "⊗", "circ": "∘", "ast": "∗", "star": "⋆", "nabla": "∇", "partial": "∂",
    "ell": "ℓ", "hbar": "ℏ", "sum": "∑", "prod": "∏", "int": "∫", "perp": "⊥",
    "parallel": "∥", "langle": "⟨", "rangle": "⟩", "uparrow": "↑", "downarrow": "↓",
}
# fmt: on


def _convention_forms() -> dict[str, str]:
    """What math papers' shorthands (\\CC, \\Gr, \\eps) stand for outside math: ℂ, Gr, ε."""
    forms = {name: name for name in conventions.OPERATORS}
    for name, (font, letter) in conventions.STYLED_LETTERS.items():
        char = MATH_SYMBOLS.get(letter, letter)
        forms[name] = styled(char, conventions.FONT_VARIANTS[font]) or char
    abbreviated = conventions.ABBREVIATIONS.items()
    return forms | {name: MATH_SYMBOLS[target] for name, target in abbreviated if target in MATH_SYMBOLS}


# Shorthands outside math; the kernel's text symbols keep their meaning (\AA is Å there).
CONVENTIONS: dict[str, str] = {
    name: form for name, form in _convention_forms().items() if name not in TEXT_SYMBOLS
}
SYMBOLS: dict[str, str] = TEXT_SYMBOLS | MATH_SYMBOLS | CONVENTIONS
# fmt: off
STYLES: dict[str, str | None] = {
    "textit": "em", "emph": "em", "textsl": "em", "textbf": "strong", "texttt": "code",
    "textsuperscript": "sup", "textsubscript": "sub", "textrm": None, "textsf": None,
    "textup": None, "textmd": None, "textnormal": None, "textsc": None, "text": None,
    "mbox": None, "hbox": None, "underline": None,
}
DECLARATIONS: dict[str, str | None] = {
    "em": "em", "it": "em", "itshape": "em", "sl": "em", "slshape": "em",
    "bf": "strong", "bfseries": "strong", "tt": "code", "ttfamily": "code",
    "rm": None, "sf": None, "sc": None, "scshape": None, "upshape": None, "normalfont": None,
    "rmfamily": None, "sffamily": None, "mdseries": None,
}
ACCENTS: dict[str, str] = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331", "t": "\u0361",
}
# Citations and cross-references point into a paper that is not here: one neutral marker.
REFERENCES = frozenset({
    "cite", "citep", "citet", "citealp", "citealt", "citeauthor", "citeyear", "parencite",
    "textcite", "autocite", "footcite", "ref", "eqref", "autoref", "cref", "Cref", "pageref",
})
REFERENCE_MARK = "[…]"
LINKS = {"url": 1, "href": 2}
FOOTNOTE = "footnote"  # shown in parentheses where it stands
# Text commands of the LaTeX kernel, which BibTeX output keeps as they are.
KERNEL_TEXT = frozenset({
    "LaTeX", "TeX", "ldots", "dots", "textellipsis", "textendash", "textemdash", "S", "P",
    "dag", "ddag", "textbackslash", "textasciitilde", "textasciicircum", "textbar",
    "textless", "textgreater", "textbullet", "textdegree", "textquoteleft", "textquoteright",
    "textquotedblleft", "textquotedblright", "copyright", "textregistered", "texttrademark",
    "pounds", "ss", "ae", "AE", "oe", "OE", "o", "O", "aa", "AA", "l", "L", "i", "j",
    "quad", "qquad",
})
KERNEL_CONTROL_SYMBOLS = frozenset("%&$#_,-/@")
# fmt: on


def arity(name: str) -> int | None:
    """Number of brace arguments a known macro takes; None for unknown macros."""
    if name in SYMBOLS or name in DECLARATIONS:
        return 0
    if name in STYLES or name in ACCENTS or name in REFERENCES or name == FOOTNOTE:
        return 1
    return LINKS.get(name)
