"""TeX as math papers write it: their shorthands known, an unknown macro shown as source on its
own, operator names spaced as TeX spaces them (in MathML and in plain text)."""

from __future__ import annotations

import re

import pytest
from latex2mathml.converter import convert

from scholarsite.tex import conventions
from scholarsite.tex.bibtex import tex_to_bibtex
from scholarsite.tex.macros import CONVENTIONS
from scholarsite.tex.render import tex_problems, tex_to_html, tex_to_plain

from .test_tex import audit

THIN = '<mspace width="0.1667em"></mspace>'


def tokens(html: str) -> list[str]:
    """The token elements of MathML markup and the spaces between them, in order:
    `mi:log`, `mo:(`, `space`, `tex:\\sbp`."""
    found = re.finditer(r'<(mi|mo|mn|mtext)( class="tex")?[^>]*>([^<]*)</\1>|<mspace width="([^"]+)">', html)
    return [
        "space" if m.group(4) else ("tex" if m.group(2) else m.group(1)) + ":" + m.group(3) for m in found
    ]


# --- shorthands ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "letter"),
    [
        (r"$\CC$", "ℂ"), (r"$\ZZ$", "ℤ"), (r"$\RR$", "ℝ"), (r"$\NN$", "ℕ"), (r"$\QQ$", "ℚ"),
        (r"$\FF$", "𝔽"), (r"$\PP$", "ℙ"), (r"$\bbA$", "𝔸"), (r"$\R$", "ℝ"), (r"$\E$", "𝔼"),
        (r"$\cA$", "𝒜"), (r"$\cB$", "ℬ"), (r"$\calO$", "𝒪"), (r"$\mcF$", "ℱ"),
        (r"$\scrL$", "ℒ"),
        (r"$\fg$", "𝔤"), (r"$\fp$", "𝔭"), (r"$\frakS$", "𝔖"),
        (r"$\bA$", "𝐀"), (r"$\bx$", "𝐱"), (r"$\btheta$", "𝜽"), (r"$\bSigma$", "𝜮"),
    ],
)  # fmt: skip
def test_letter_shorthands_are_their_styled_letters(tex: str, letter: str) -> None:
    html = tex_to_html(tex)
    assert f"<mi>{letter}</mi>" in html and 'class="tex"' not in html
    assert tex_problems(tex) == []
    audit(html)


@pytest.mark.parametrize("name", ["Gr", "Br", "Hom", "End", "Spec", "Aut", "Pic", "rk", "tr", "arg"])
def test_operator_shorthands_are_upright_operator_names(name: str) -> None:
    html = tex_to_html(rf"$\{name}(X)$")
    assert tokens(html)[:2] == [f"mo:{name}", "mo:("]  # as \operatorname: no space before "("
    assert f'<mo lspace="0" rspace="0">{name}</mo>' in html
    assert tex_to_plain(rf"$\{name}(X)$") == f"{name}(X)"


def test_the_issues_formulas_render_whole() -> None:
    cases = {
        r"$\CC[\Gr(4,8)]$": ("ℂ[Gr(4,8)]", ["mi:ℂ", "mo:[", "mo:Gr", "mo:(", "mn:4", "mo:,", "mn:8"]),
        r"$\ZZ \subseteq \cB \subseteq \cA$": ("Z⊆B⊆A", ["mi:ℤ", "mo:⊆", "mi:ℬ", "mo:⊆", "mi:𝒜"]),
        r"$\Br(\FF(y))$": ("Br(F(y))", ["mo:Br", "mo:(", "mi:𝔽", "mo:(", "mi:y"]),
    }
    for tex, (plain, start) in cases.items():
        html = tex_to_html(tex)
        assert "<code" not in html and tex_problems(tex) == []
        assert tokens(html)[: len(start)] == start
        assert tex_to_plain(tex) == plain.replace("ℂ", "C")  # plain text has plain letters


def test_every_shorthand_renders_in_math_and_outside_it() -> None:
    accents = {"wt", "wh", "ol"}  # they take an argument, and mean nothing outside math
    for name in conventions.MATH:
        math = f"$\\{name}{{x}}$" if name in accents else f"$\\{name}$"
        html = tex_to_html(math)
        assert 'class="tex"' not in html and "mathvariant" not in html and "<code" not in html, name
        text = math if name in accents else f"{math} and \\{name}"
        assert tex_problems(text) == [] and "\\" not in tex_to_plain(text), name
    assert set(CONVENTIONS) == set(conventions.MATH) - accents - {"AA"}  # \AA is Å outside math


def test_abbreviations_stand_for_the_standard_commands() -> None:
    assert tex_to_html(r"$\eps$") == tex_to_html(r"$\varepsilon$")
    assert tex_to_html(r"$\wt{x} + \ol{y}$") == tex_to_html(r"$\widetilde{x} + \overline{y}$")


def test_shorthands_outside_math_are_their_characters() -> None:
    assert tex_to_html(r"modules over \CC and \Gr, \eps-nets") == "modules over ℂ and Gr, ε-nets"
    assert tex_to_plain(r"over \CC") == "over C"
    assert tex_problems(r"over \CC") == []
    assert tex_to_html(r"\AA ngstr\"om") == "Å ngström"  # the kernel's \AA stays Å outside math


def test_no_shorthand_is_a_command_latex2mathml_knows() -> None:
    """A shorthand never changes what standard TeX means (\\beta stays beta, \\bf bold)."""
    assert {"beta", "bf", "bm", "DD", "fi"}.isdisjoint(conventions.MATH)
    for name in conventions.MATH:
        assert f"<mi>\\{name}</mi>" in convert(f"\\{name}"), name
    assert tex_to_plain(r"$\beta$ and \beta") == "β and β"


def test_shorthands_are_not_found_inside_other_macros_or_after_a_backslash() -> None:
    assert conventions.expand(r"\CCx + \\CC + \CC_1") == r"\CCx + \\CC + {\mathbb C}_1"


def test_bibtex_writes_the_standard_tex_of_shorthands() -> None:
    assert tex_to_bibtex(r"Brauer groups $\Br(\FF(y))$ over \CC") == (
        r"Brauer groups $\operatorname{Br}({\mathbb F}(y))$ over \ensuremath{{\mathbb C}}"
    )


# --- unknown macros -----------------------------------------------------------------------------


def test_an_unknown_macro_is_source_on_its_own_and_the_rest_of_its_formula_renders() -> None:
    html = tex_to_html(r"$\sbp^2 + \frac{\alpha}{\ModelNameL}$ rounds")
    assert "<code" not in html
    assert tokens(html) == ["tex:\\sbp", "mn:2", "mo:+", "mi:α", "tex:\\ModelNameL"]
    assert '<msup><mtext class="tex">\\sbp</mtext><mn>2</mn></msup>' in html
    assert "<mfrac>" in html and html.endswith("</math> rounds")
    assert tex_to_plain(r"$\sbp + 1$") == "sbp+1"  # plain text never holds a backslash
    assert tex_problems(r"$\sbp + \sbp$") == ["unknown macro '\\sbp' in math kept as TeX source"]
    audit(html)


def test_an_unknown_macro_in_math_text_is_source_and_other_tex_there_is_not() -> None:
    assert tokens(tex_to_html(r"$\text{\ours} = 1$")) == ["tex:\\ours", "mo:=", "mn:1"]
    assert tex_to_html(r"$\text{a \ours}$").startswith('<code class="tex">')  # TeX inside text


def test_a_class_in_math_is_only_ever_the_tex_source_mark() -> None:
    html = tex_to_html(r"$\class{x onclick}{y} + \sbp$")
    assert 'class="x' not in html and "onclick" not in html
    audit(html)


# --- spacing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "plain", "spaced"),
    [
        (r"$\mathcal{O}(n \log n)$", "O(n log n)", ["mi:n", "space", "mi:log", "space", "mi:n"]),
        (r"$\log n$", "log n", ["mi:log", "space", "mi:n"]),
        (r"$\log(n)$", "log(n)", ["mi:log", "mo:("]),
        (r"$(n)\log$", "(n) log", ["mo:)", "space", "mi:log"]),
        (r"$\log\log n$", "log log n", ["mi:log", "space", "mi:log", "space", "mi:n"]),
        (r"$\sin^2 x$", "sin² x", ["mn:2", "space", "mi:x"]),
        (r"$\max_i x_i$", "max_i x_i", ["mi:i", "space", "mi:x"]),
        (r"$\operatorname{rank} A$", "rank A", ["mo:rank", "space", "mi:A"]),
        (r"$a \bmod b$", "a mod b", ["mi:a", "space", "mo:mod", "space", "mi:b"]),
        (r"$x + \sin y$", "x+sin y", ["mo:+", "mi:sin", "space", "mi:y"]),
        (r"$f(x, \log y)$", "f(x,log y)", ["mo:,", "mi:log", "space", "mi:y"]),
    ],
)
def test_operator_names_are_spaced_as_tex_spaces_them(tex: str, plain: str, spaced: list[str]) -> None:
    assert tex_to_plain(tex) == plain
    found = tokens(tex_to_html(tex))
    assert any(found[i : i + len(spaced)] == spaced for i in range(len(found))), found


def test_spaces_are_thin_around_names_and_medium_around_mod() -> None:
    assert tex_to_html(r"$n \log n$").count(THIN) == 2
    assert tex_to_html(r"$a \bmod b$").count('<mspace width="0.2222em"></mspace>') == 2
    assert "mspace" not in tex_to_html(r"$x_i + \alpha$")  # nothing else gains spaces


def test_plain_text_of_a_title_reads_as_the_page_shows_it() -> None:
    title = r"Compiling $\mathcal{O}(n \log n)$ Programs"
    assert tex_to_plain(title) == "Compiling O(n log n) Programs"
