"""The shorthands math papers define in their preambles, and what each one stands for.

arXiv metadata carries no preamble, so `$\\ZZ \\subseteq \\cB$` or `$\\Br(\\FF(y))$` arrive with
macros nobody defined. The conventional ones are known here: blackboard (`\\CC`, `\\ZZ`, `\\bbR`,
`\\R`), calligraphic (`\\cA`, `\\calA`, `\\mcA`), script (`\\scrL`), fraktur (`\\fg`, `\\frakp`),
bold (`\\bA`, `\\bx`, `\\btheta`), operator names (`\\Gr`, `\\Hom`, `\\Spec`, upright like
`\\operatorname`) and a few abbreviations (`\\eps`, `\\wt`). None of them is a command
latex2mathml knows (a test checks), so none changes what standard TeX means.
"""

from __future__ import annotations

import re
from string import ascii_letters, ascii_uppercase

_GREEK_NAMES = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi "
    "varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
)
GREEK = _GREEK_NAMES.split()
FONT_VARIANTS = {  # font command -> the mathvariant of its letters
    "mathbb": "double-struck", "mathcal": "script", "mathscr": "script",
    "mathfrak": "fraktur", "mathbf": "bold", "boldsymbol": "bold-italic",
}  # fmt: skip
# Names a family would make that are standard already: ⅅ, \bf, \bm, \beta (not bold eta), \fi.
_STANDARD = frozenset({"DD", "bf", "bm", "beta", "fi"})


def _family(font: str, prefixes: tuple[str, ...], letters: str | list[str]) -> dict[str, tuple[str, str]]:
    """Every ``prefix + letter`` as (font, letter), standard commands left out."""
    names = {prefix + letter: (font, letter) for prefix in prefixes for letter in letters}
    return {name: value for name, value in names.items() if name not in _STANDARD}


# name -> (font command, letter or Greek macro name): \CC -> ("mathbb", "C")
STYLED_LETTERS: dict[str, tuple[str, str]] = (
    {letter * 2: ("mathbb", letter) for letter in ascii_uppercase if letter * 2 not in _STANDARD}
    | {letter: ("mathbb", letter) for letter in "CEFNQRZ"}
    | _family("mathbb", ("bb",), ascii_uppercase)
    | _family("mathcal", ("c", "cal", "mc"), ascii_uppercase)
    | _family("mathscr", ("scr",), ascii_uppercase)
    | _family("mathfrak", ("f", "frak"), ascii_letters)
    | _family("mathbf", ("b",), ascii_letters)
    | _family("boldsymbol", ("b",), GREEK)
)
_OPERATOR_NAMES = (
    "Ad ad Aff Alg arg Aut Bl Br CH Cl codim coker Coker conv Corr Cov curl Der diag Div dist "
    "Emb End erf erfc Exp Ext Fix Frac Frob Fun Gal GL grad Gr Hess Hilb Hom id Id im Ind Inn "
    "Irr Isom Iso Jac Ker lcm Lie Lip Log Map Mat Mod Mor Nm NS Ob OPT Out Perf PGL Pic Proj "
    "PSL PSU rank Rep Res rk Sch sgn sign Sing SL SO Sp Span span Spec Spf Spin Stab SU supp Sym "
    "Tor tr Tr Var Vect vol Vol"
)
OPERATORS = frozenset(_OPERATOR_NAMES.split())
ABBREVIATIONS = {  # name -> the standard command it abbreviates
    "eps": "varepsilon", "veps": "varepsilon", "vphi": "varphi",
    "wt": "widetilde", "wh": "widehat", "ol": "overline",
}  # fmt: skip


def _math_form(name: str) -> str:
    """The standard TeX a shorthand stands for in math (``{\\mathbb C}``: latex2mathml styles a
    braced single letter from a table of its own, with gaps)."""
    if name in STYLED_LETTERS:
        font, letter = STYLED_LETTERS[name]
        base = letter if letter in ascii_letters else "\\" + letter
        return f"{{\\{font} {base}}}"
    if name in OPERATORS:
        return f"\\operatorname{{{name}}}"
    return "\\" + ABBREVIATIONS[name]


MATH: dict[str, str] = {name: _math_form(name) for name in (*STYLED_LETTERS, *OPERATORS, *ABBREVIATIONS)}
_COMMAND = re.compile(r"\\(?:([A-Za-z]+)|.)", re.DOTALL)


def expand(body: str) -> str:
    """A math body with every known shorthand replaced by the standard TeX it stands for."""
    if "\\" not in body:
        return body
    return _COMMAND.sub(lambda m: MATH.get(m.group(1) or "", m.group()), body)
