"""TeX in titles and abstracts -> safe HTML (MathML) and plain text."""

from __future__ import annotations

import re
import shutil
import string
import subprocess
import unicodedata
from collections.abc import Sequence
from html import unescape
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path

import bibtexparser
import nh3
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markupsafe import Markup
from pylatexenc.latex2text import (  # bibtexparser's own dependency
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)

from scholarsite.tex.alphabets import STYLED
from scholarsite.tex.bibtex import tex_to_bibtex
from scholarsite.tex.mathml import convert_math
from scholarsite.tex.mathspans import MATHML_ATTRIBUTES, MATHML_TAGS, find_math
from scholarsite.tex.parse import parse
from scholarsite.tex.render import tex_problems, tex_to_html, tex_to_plain, tex_to_title_html

from .test_citations import braces_balance

REPO = Path(__file__).resolve().parents[1]
SEED_ABSTRACTS = [
    line.strip()
    for path in sorted((REPO / "seeds").glob("*.txt"))
    for line in path.read_text(encoding="utf-8").splitlines()
    if len(line) > 200
]
HTML_TAGS = {"em", "strong", "code", "sup", "sub", "a"}
ALLOWED_TAGS = MATHML_TAGS | HTML_TAGS
NBSP = "\u00a0"
TAG_START = re.compile(r"</?([a-z]+)[ >]")


class _Audit(HTMLParser):
    """Collects every tag, attribute and non-text construct of an HTML fragment."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str | None]] = []
        self.other: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [(tag, name, value) for name, value in attrs]

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.other.append(f"self-closing {tag}")

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.other.append("comment")

    def handle_decl(self, decl: str) -> None:
        self.other.append("declaration")

    def handle_pi(self, data: str) -> None:
        self.other.append("processing instruction")

    def unknown_decl(self, data: str) -> None:
        self.other.append("unknown declaration")


def audit(html: str) -> _Audit:
    """Parse ``html`` and fail if anything outside the allowlists appears."""
    parser = _Audit()
    parser.feed(html)
    parser.close()
    assert "<script" not in html.lower()
    assert not parser.other
    assert set(parser.tags) <= ALLOWED_TAGS
    for tag, name, value in parser.attributes:
        assert not name.startswith("on")
        if tag == "code" or (tag == "mtext" and name == "class"):
            assert (name, value) == ("class", "tex")
        elif tag == "a":
            assert name == "href" and re.match(r"(https?|mailto):[^\s\"<>\\]*$", value or "", re.I), value
        else:
            assert tag in MATHML_TAGS and name in MATHML_ATTRIBUTES
    for match in re.finditer("<", html):
        tag = TAG_START.match(html, match.start())
        assert tag and tag.group(1) in ALLOWED_TAGS, html[match.start() : match.start() + 40]
    return parser


def math_elements(html: str) -> int:
    return html.count("<math ")


# --- the seeds' own TeX -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "plain"),
    [
        (r"$1.27\times$", "1.27×"),
        (r"$^{167}\mathrm{Er}^{3+}$", "¹⁶⁷Er³⁺"),
        (r"$277.6(52.6)$~s", "277.6(52.6) s"),
        (r"$23.3(5)\%$", "23.3(5)%"),
        (r"$6\%-30\%$", "6%\u221230%"),
        ("light--matter", "light\u2013matter"),
        (r"\textit{e.g.}, PPO", "e.g., PPO"),
        (r"\ours{} has been deployed", "ours has been deployed"),
        (r"(\eg, WebRTC)", "(e.g., WebRTC)"),
        ("``kernel grafts''", "\u201ckernel grafts\u201d"),
        ("20~MHz", "20 MHz"),
    ],
)
def test_seed_snippets_plain(tex: str, plain: str) -> None:
    assert tex_to_plain(tex) == plain


def test_seed_math_becomes_mathml() -> None:
    html = tex_to_html(r"purified $^{167}\mathrm{Er}^{3+}$-doped, $1.27\times$ faster")
    assert isinstance(html, Markup)
    assert math_elements(html) == 2
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert "<msup><mi></mi><mrow><mn>167</mn></mrow></msup>" in html
    assert '<mi mathvariant="normal">E</mi>' in html
    assert "<mn>1.27</mn><mo>×</mo>" in html
    assert html.endswith("</math> faster")


def test_seed_text_macros() -> None:
    html = tex_to_html(r"lifetime of $277.6(52.6)$~s; light--matter; \textit{e.g.}, PPO")
    assert f"</math>{NBSP}s;" in html
    assert "light\u2013matter" in html
    assert "<em>e.g.</em>, PPO" in html


def test_unknown_macro_without_argument_shown_as_tex_source() -> None:
    assert tex_to_html(r"\ours{} has") == '<code class="tex">\\ours{}</code> has'
    assert tex_to_html(r"\ours has") == '<code class="tex">\\ours</code> has'
    assert tex_to_plain(r"\ours{} has") == "ours has"
    assert tex_problems(r"\ours{}") == ["unknown macro '\\ours' kept as TeX source"]


@pytest.mark.parametrize("abstract", SEED_ABSTRACTS, ids=lambda a: a[:30])
def test_seed_abstracts_every_math_span_is_mathml(abstract: str) -> None:
    html = tex_to_html(abstract)
    audit(html)
    assert math_elements(html) == len(re.findall(r"\$[^$]+\$", abstract))
    assert "$" not in re.sub(r"<code.*?</code>", "", html)


@pytest.mark.parametrize("abstract", SEED_ABSTRACTS, ids=lambda a: a[:30])
def test_seed_abstracts_keep_every_word(abstract: str) -> None:
    prose = re.sub(r"\\[A-Za-z]+", " ", re.sub(r"\$[^$]+\$", " ", abstract))
    plain = tex_to_plain(abstract)
    missing = [word for word in re.findall(r"[A-Za-z0-9]+", prose) if word not in plain]
    assert not missing
    assert not re.search(r"\\[A-Za-z]", plain)


def test_seed_abstracts_have_only_unknown_macro_problems() -> None:
    problems = {p for abstract in SEED_ABSTRACTS for p in tex_problems(abstract)}
    assert "unknown macro '\\ours' kept as TeX source" in problems
    assert all(problem.startswith("unknown macro") for problem in problems)


def test_seeds_contain_the_examples_this_module_was_built_for() -> None:
    seeds = "\n".join(SEED_ABSTRACTS)
    for shown in (r"$1.27\times$", r"$^{167}\mathrm{Er}^{3+}$", "light--matter", r"\ours{}"):
        assert shown in seeds


# --- text-mode macros ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "html"),
    [
        (
            r"\emph{a} \textit{b} \textbf{c} \texttt{d}",
            "<em>a</em> <em>b</em> <strong>c</strong> <code>d</code>",
        ),
        (r"\textbf {spaced}", "<strong>spaced</strong>"),
        (r"{\em word} rest", "<em>word</em> rest"),
        (r"{\bf a {\it b} c}", "<strong>a <em>b</em> c</strong>"),
        (r"x\textsuperscript{th}", "x<sup>th</sup>"),
        ("a--b---c", "a\u2013b\u2014c"),
        ("a----b", "a\u2014-b"),
        ("``quoted''", "\u201cquoted\u201d"),
        ("it's `fine'", "it&#39;s \u2018fine\u2019"),
        (r"10\% \& \$5 \# \_ \{\}", "10% &amp; $5 # _ {}"),
        ("a~b", f"a{NBSP}b"),
        (r"10\,GB", "10\u202fGB"),
        (r"Schr\"odinger \'{e}cole \c{c}a \v{s} \'{\i}", "Schrödinger école ça š í"),
        (r"\LaTeX{} \ldots", "LaTeX …"),
        (r"\url{https://x.org/a_b~c}", '<a href="https://x.org/a_b~c">https://x.org/a_b~c</a>'),
        (r"\href{javascript:alert(1)}{click}", "click"),
        (r"\eg \ie \etal", "e.g. i.e. et al."),
        ("47% of time", "47% of time"),
        ("a}b", "a}b"),
        ("{a", "a"),
        ("", ""),
    ],
)
def test_text_macros_html(tex: str, html: str) -> None:
    assert tex_to_html(tex) == html


def test_known_macro_without_argument_is_kept_as_source() -> None:
    assert tex_to_html(r"\textbf x") == '<code class="tex">\\textbf</code> x'
    assert tex_problems(r"\textbf x") == ["macro '\\textbf' lacks its {argument}; kept as TeX source"]


def test_plain_drops_markup() -> None:
    assert tex_to_plain(r"\emph{Deep} \textbf{learning}~for {\em all}") == "Deep learning for all"
    assert tex_to_plain("  a \n\n b  ") == "a b"
    assert tex_to_plain(r"\'e\`a\^o") == "éàô"
    assert tex_to_plain(r"\unknown") == "unknown"
    assert tex_to_plain(r"\foo{bar}{baz}") == "bar baz"


# --- math ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "inline", "display"),
    [
        ("$a$", 1, 0),
        ("$$a$$", 0, 1),
        (r"\(a\)", 1, 0),
        (r"\[a\]", 0, 1),
        ("$a$$b$", 2, 0),
        ("$a$ and $$b$$ and \\(c\\) and \\[d\\]", 2, 2),
    ],
)
def test_math_delimiters(tex: str, inline: int, display: int) -> None:
    html = tex_to_html(tex)
    assert html.count('display="inline"') == inline
    assert html.count('display="block"') == display


def test_escaped_dollar_is_a_dollar_sign() -> None:
    assert tex_to_html(r"costs \$5 or \$6") == "costs $5 or $6"
    assert tex_problems(r"costs \$5 or \$6") == []
    assert math_elements(tex_to_html(r"\\$x$")) == 1  # a line break, then math


def test_unbalanced_dollar_is_literal_and_reported() -> None:
    assert tex_to_html("costs $5") == "costs $5"
    assert tex_to_plain("costs $5") == "costs $5"
    problems = tex_problems("costs $5")
    assert len(problems) == 1
    assert problems[0].startswith("unbalanced '$' (odd number of unescaped dollar signs")


def test_other_unbalanced_delimiters_are_reported() -> None:
    assert tex_to_html(r"\( x") == '<code class="tex">\\(</code> x'
    assert "unmatched '\\\\(' at offset 0" in tex_problems(r"\( x")
    assert tex_problems("a}") == ["unbalanced braces: unexpected '}' at offset 1"]
    assert tex_problems("{a") == ["unbalanced braces: '{' at offset 0 is never closed"]


def test_math_is_lifted_before_text_processing() -> None:
    html = tex_to_html(r"$a_b~c--d \% {x}$ and a_b")
    assert math_elements(html) == 1
    assert "<msub><mi>a</mi><mi>b</mi></msub>" in html
    assert html.endswith("</math> and a_b")
    assert tex_to_html(r"\textbf{$x$ bold}").startswith("<strong><math ")


def test_unconvertible_math_is_kept_as_tex_source() -> None:
    assert tex_to_html(r"$\frac{a}$ x") == '<code class="tex">$\\frac{a}$</code> x'
    assert tex_to_plain(r"$\frac{a}_2$") == "a_2"  # its source as text
    assert tex_problems(r"$\frac{a}$") == ["math '$\\\\frac{a}$' could not be converted; kept as TeX source"]
    assert tex_to_html(r"$\newcommand{\a}{x}\a$").startswith('<code class="tex">')


def test_text_escapes_inside_math_text() -> None:
    assert "<mtext>10%</mtext>" in tex_to_html(r"$\text{10\%}$")


@pytest.mark.parametrize(
    ("tex", "plain"),
    [
        ("$x^2$", "x²"),
        ("$x_{ij}$", "x_(ij)"),
        ("$H_2O$", "H₂O"),
        (r"$\frac{a+b}{c}$", "(a+b)/c"),
        (r"$\sqrt{x}$", "√x"),
        (r"$\hat{x}$", "x"),
        ("$e^{i k}$", "e^(ik)"),
        ("$f'$", "f′"),
        (r"$\alpha \leq 0.5$", "α≤0.5"),
        (r"$\begin{matrix}a&b\\c&d\end{matrix}$", "a, b; c, d"),
    ],
)
def test_math_plain(tex: str, plain: str) -> None:
    assert tex_to_plain(tex) == plain


def test_mathml_attributes_are_allowlisted_and_well_formed() -> None:
    html = tex_to_html(r"$\color{red}x \href{javascript:alert(1)}{y} \hspace{foo}\left(z\right)$")
    assert "mathcolor" not in html and "href" not in html and "javascript" not in html
    assert 'width="f' not in html
    assert 'stretchy="true" fence="true"' in html
    audit(html)


def test_nh3_keeps_our_mathml() -> None:
    converted = convert_math(r"\sum_{i=1}^n \frac{\sqrt[3]{x_i}}{\overline{y}} \quad \text{ok}", False)
    assert converted is not None
    for tag in ("math", "msubsup", "mfrac", "mroot", "msub", "mover", "mspace", "mtext"):
        assert f"<{tag}" in converted.html
    attributes = {tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS}
    assert nh3.clean(converted.html, tags=set(MATHML_TAGS), attributes=attributes) == converted.html


# --- links, references, text symbols, quotes ----------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "html", "plain", "bibtex"),
    [
        (
            r"code at \href{https://github.com/a-b/c}{our repo}.",
            'code at <a href="https://github.com/a-b/c">our repo</a>.',
            "code at our repo (https://github.com/a-b/c).",
            r"code at \href{https://github.com/a-b/c}{our repo}.",
        ),
        (
            r"see \url{https://x.org/a_b%20c#d}",
            'see <a href="https://x.org/a_b%20c#d">https://x.org/a_b%20c#d</a>',
            "see https://x.org/a_b%20c#d",
            r"see \url{https://x.org/a_b\%20c\#d}",
        ),
        (
            r"mail \href{mailto:a@b.org}{us}",
            'mail <a href="mailto:a@b.org">us</a>',
            "mail us (mailto:a@b.org)",
            r"mail \href{mailto:a@b.org}{us}",
        ),
        (r"\href{javascript:alert(1)}{click}", "click", "click", "click"),
        (r"\url{javascript:alert(1)}", "javascript:alert(1)", "javascript:alert(1)", "javascript:alert(1)"),
        (r"\href{ftp://x.org/f}{file}", "file", "file", "file"),
        (
            r"\href{https://x.org/\%7E a\_b\#c}{x}",
            '<a href="https://x.org/%7Ea_b#c">x</a>',
            "x (https://x.org/%7Ea_b#c)",
            r"\href{https://x.org/\%7Ea_b\#c}{x}",
        ),
        (
            r'\href{https://x.org/"onmouseover="alert(1)}{x}',
            '<a href="https://x.org/%22onmouseover=%22alert(1)">x</a>',
            'x (https://x.org/"onmouseover="alert(1))',
            r"\href{https://x.org/\%22onmouseover=\%22alert(1)}{x}",
        ),
    ],
)
def test_links_in_text(tex: str, html: str, plain: str, bibtex: str) -> None:
    assert tex_to_html(tex) == html
    assert tex_to_plain(tex) == plain
    assert tex_to_bibtex(tex) == bibtex
    assert tex_problems(tex) == []


def test_links_in_math_are_lifted_out_as_real_links() -> None:
    tex = r"code: $\href{https://github.com/a-b/c}{code}$, and $a+\url{https://x.org/a-b}+b$."
    html = tex_to_html(tex)
    audit(html)
    assert html.startswith('code: <a href="https://github.com/a-b/c">code</a>, and <math ')
    assert '<a href="https://x.org/a-b">https://x.org/a-b</a><math ' in html
    assert math_elements(html) == 2  # a+ and +b; the first span was only a link
    assert tex_to_plain(tex) == "code: code (https://github.com/a-b/c), and a+https://x.org/a-b+b."
    assert (
        tex_to_bibtex(tex)
        == r"code: \href{https://github.com/a-b/c}{code}, and $a+$\url{https://x.org/a-b}$+b$."
    )
    assert "\u2212" not in tex_to_plain(tex)  # the URL's hyphen stays a hyphen
    assert tex_problems(tex) == []


def test_links_inside_math_groups_stay_math() -> None:
    """Only links outside any group are lifted: splitting \\frac{..} would break the math."""
    html = tex_to_html(r"$\frac{\href{https://x.org}{a}}{b}$")
    assert "<a " not in html and math_elements(html) == 1


def test_title_html_has_no_links() -> None:
    """Titles are shown inside a link to their paper, and links do not nest."""
    tex = r"Tool \href{https://x.org}{X} and \url{https://y.org} $\href{https://z.org}{z}$"
    assert tex_to_title_html(tex) == "Tool X and https://y.org z"
    assert tex_to_html(tex).count("<a href=") == 3


@pytest.mark.parametrize(
    "tex",
    [r"\cite{smith2020}", r"\citep{a,b}", r"\citet{a}", r"\ref{fig:1}", r"\eqref{eq}", r"\autoref{s}"],
)
def test_citations_and_references_are_one_neutral_marker(tex: str) -> None:
    text = f"as in {tex}, done"
    assert tex_to_html(text) == "as in […], done"
    assert tex_to_plain(text) == "as in […], done"
    assert tex_to_bibtex(text) == r"as in [\ldots{}], done"
    assert tex_problems(text) == []


@pytest.mark.parametrize(
    ("tex", "plain"),
    [
        (r"the \lambda-calculus", "the λ-calculus"),
        (r"\alpha, \beta, \Gamma, \Delta, \tau, \eta, \omega, \Omega", "α, β, Γ, Δ, τ, η, ω, Ω"),
        (r"$A \cap B$ vs A \cap B \cup C", "A∩B vs A ∩ B ∪ C"),
        (r"rotated 90\deg", "rotated 90°"),
        (r"n \times m, \pm 3, a \leq b \geq c", "n × m, ± 3, a ≤ b ≥ c"),
        (r"n \to \infty, a \rightarrow b, x \sim y \approx z", "n → ∞, a → b, x ∼ y ≈ z"),
    ],
)
def test_text_mode_greek_and_symbols(tex: str, plain: str) -> None:
    assert tex_to_plain(tex) == plain
    assert "<code" not in tex_to_html(tex)
    assert tex_problems(tex) == []
    assert "\\textbackslash" not in tex_to_bibtex(tex)


def test_text_mode_symbols_in_html() -> None:
    assert tex_to_html(r"the \lambda-calculus, $n \times m$ vs n \times m") == (
        'the λ-calculus, <math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">'
        "<mrow><mi>n</mi><mo>×</mo><mi>m</mi></mrow></math> vs n × m"
    )


def test_text_mode_symbols_in_bibtex_stay_valid_tex() -> None:
    assert tex_to_bibtex(r"the \lambda-calculus, 90\deg, n \times m") == (
        r"the \ensuremath{\lambda}-calculus, 90\textdegree{}, n \ensuremath{\times} m"
    )


@pytest.mark.parametrize(
    ("tex", "plain"),
    [
        ("`quoted' text", "\u2018quoted\u2019 text"),
        ("``double'' text", "\u201cdouble\u201d text"),
        ("don't `stop' it's", "don't \u2018stop\u2019 it's"),
        ("`don't stop' now", "\u2018don't stop\u2019 now"),
        ("the students' `work'", "the students' \u2018work\u2019"),
        ("a `lone backquote", "a `lone backquote"),
        ("`$x$' and `\\emph{y}'", "\u2018x\u2019 and \u2018y\u2019"),
        ("$f'(x)$ and `a'", "f′(x) and \u2018a\u2019"),
        (r"\`a and \'e", "à and é"),
    ],
)
def test_tex_quotes_become_typographic_and_apostrophes_stay(tex: str, plain: str) -> None:
    assert tex_to_plain(tex) == plain
    assert tex_problems(tex) == []


def test_quotes_keep_their_tex_spelling_in_bibtex() -> None:
    assert tex_to_bibtex("`quoted' ``double'' don't a--b---c d~e") == "`quoted' ``double'' don't a--b---c d~e"


@pytest.mark.parametrize(
    "tex",
    [
        "$x$, and $y$.",
        r"\(x\); and \(y\):",
        "$x$) and ($y$",
        r"$x\,$, and $\quad y$.",
        r"\emph{$x$}, and",
        r"\cite{a}, \ldots{}, and",
    ],
)
def test_no_space_appears_before_punctuation(tex: str) -> None:
    plain = tex_to_plain(tex)
    text = unescape(
        re.sub(r"<math.*?</math>", "M", tex_to_html(tex)).replace("<em>", "").replace("</em>", "")
    )
    for rendered in (plain, text):
        assert not re.search(r"\s[,.;:)]", rendered), rendered
        assert "( " not in rendered


def test_unknown_macros_show_their_arguments_with_math_converted() -> None:
    tex = r"We prove \tit{every graph with $K\ge 5$ colours} is fine."
    html = tex_to_html(tex)
    assert html.startswith("We prove every graph with <math ")
    assert html.endswith("</math> colours is fine.")
    assert "<code" not in html
    assert tex_to_plain(tex) == "We prove every graph with K≥5 colours is fine."
    assert tex_to_bibtex(tex) == r"We prove every graph with $K\ge 5$ colours is fine."
    assert tex_problems(tex) == ["unknown macro '\\tit' shown as its argument"]
    assert tex_to_html(r"\foo{a}{} \bar") == 'a <code class="tex">\\bar</code>'


def test_footnotes_are_shown_in_parentheses() -> None:
    assert tex_to_html(r"results\footnote{see \emph{x}}.") == "results (see <em>x</em>)."
    assert tex_to_plain(r"results\footnote{see x}.") == "results (see x)."


# --- styled math letters ------------------------------------------------------------------------

FONT_COMMANDS = {
    "mathbf": "bold", "mathit": "italic", "boldsymbol": "bold-italic", "mathcal": "script",
    "mathscr": "script", "mathfrak": "fraktur", "mathbb": "double-struck", "mathsf": "sans-serif",
    "mathtt": "monospace",
}  # fmt: skip
MATHVARIANT = re.compile(r'mathvariant="(?!normal")')


@pytest.mark.parametrize("command", FONT_COMMANDS)
def test_styled_letters_are_unicode_characters_braced_or_not(command: str) -> None:
    table = STYLED[FONT_COMMANDS[command]]
    for letter in string.ascii_letters + string.digits:
        if letter not in table or (command == "mathsf" and letter.isdigit()):  # latex2mathml: mi only
            continue
        braced = tex_to_html(f"$\\{command}{{{letter}}}$")
        unbraced = tex_to_html(f"$\\{command} {letter}$")
        assert re.sub("</?mrow>", "", braced) == re.sub("</?mrow>", "", unbraced), (command, letter)
        assert f"<m{'n' if letter.isdigit() else 'i'}>{table[letter]}</m" in braced, (command, letter, braced)
        assert not MATHVARIANT.search(braced), braced
        assert tex_to_plain(f"$\\{command}{{{letter}}}$") == letter


@pytest.mark.parametrize(
    ("tex", "styled", "plain"),
    [
        (r"$\mathbf{HA}$", "𝐇𝐀", "HA"),
        (r"$\mathfrak{gl}_n$", "𝔤𝔩", "glₙ"),
        (
            r"$\mathbb{C} \mathbb{H} \mathbb{N} \mathbb{P} \mathbb{Q} \mathbb{R} \mathbb{Z}$",
            "ℂℍℕℙℚℝℤ",
            "CHNPQRZ",
        ),
        (r"$\mathscr{B} \mathcal E \mathfrak C \mathit{h}$", "ℬℰℭℎ", "BECh"),
        (r"$\boldsymbol{\alpha} \mathbf{\Gamma} \mathbf 1$", "𝜶𝚪𝟏", "αΓ1"),
        (r"$\mathsf{A}\mathtt{x}\mathtt{1}$", "𝖠𝚡𝟷", "Ax1"),
    ],
)
def test_styled_letters_examples(tex: str, styled: str, plain: str) -> None:
    html = tex_to_html(tex)
    assert styled in "".join(re.findall(r"<m[in]>([^<]*)</m[in]>", html)), html
    assert not MATHVARIANT.search(html), html
    assert tex_to_plain(tex).replace(" ", "") == plain


def test_letters_without_a_styled_form_keep_their_mathvariant() -> None:
    html = tex_to_html(r"$\mathbb{\gamma} \mathbf{+}$")
    assert 'mathvariant="double-struck">γ' in html and 'mathvariant="bold">+' in html


def test_mathrm_letter_is_upright_braced_or_not() -> None:
    braced, unbraced = tex_to_html(r"$\mathrm{d}x$"), tex_to_html(r"$\mathrm d x$")
    assert re.sub("</?mrow>", "", braced) == re.sub("</?mrow>", "", unbraced)
    assert '<mi mathvariant="normal">d</mi>' in tex_to_html(r"$\mathrm{d}x$")


def test_styled_alphabets_are_the_right_unicode_characters() -> None:
    for variant, table in STYLED.items():
        for plain, styled in table.items():
            name = unicodedata.name(styled)  # raises for the reserved holes of the block
            assert unicodedata.normalize("NFKC", styled) == unicodedata.normalize("NFKC", plain), plain
            named = {"fraktur": ("FRAKTUR", "BLACK-LETTER"), "italic": ("ITALIC", "PLANCK")}
            assert any(word in name for word in named.get(variant, (variant.split("-")[0].upper(),))), name
    assert STYLED["italic"]["h"] == "\u210e" and STYLED["script"]["B"] == "\u212c"
    assert STYLED["fraktur"]["C"] == "\u212d" and STYLED["double-struck"]["R"] == "\u211d"


def test_percent_in_math_is_a_percent_sign() -> None:
    assert tex_to_plain("$50%$ and $6\\%$") == "50% and 6%"
    assert tex_to_bibtex("$50%$") == r"$50\%$"


# --- BibTeX -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tex", "bibtex"),
    [
        (r"Bounds \(O(n^2)\)", r"Bounds $O(n^2)$"),
        ("$$x$$ and \\[y\\]", "$x$ and $y$"),
        (
            r"\textit{a} \emph{b} \textbf{c} {\em d} {\bf e}",
            r"\textit{a} \emph{b} \textbf{c} {\em{}d} {\bf{}e}",
        ),
        (
            r"{\'e}cole \'ecole Schr\"odinger \c{c}a \v{s} \'{\i}",
            r"{\'e}cole \'ecole Schr\"odinger \c{c}a \v{s} \'{\i{}}",
        ),
        ("{BERT} and {GPT}-4", "{BERT} and {GPT}-4"),
        ("50% & R_x #1 ~ a^b", r"50\% \& R\_x \#1 ~ a\textasciicircum{}b"),
        ("a \\", r"a \textbackslash{}"),
        (r"10\% \& \$5 \# \_ \{\}", r"10\% \& \$5 \# \_ \textbraceleft{}\textbraceright{}"),
        (r"\ours{} and \foo{bar}", "ours and bar"),
        (r"\LaTeX{} \ldots \ss{}", r"\LaTeX{}{} \ldots{} \ss{}{}"),
        (r"\eg \etal", "e.g. et al."),
        (r"$\left\{ x \right.$", r"$\left\lbrace x \right.$"),
        (r"$\{x\}$ $\text{10\%}$", r"$\lbrace x\rbrace $ $\text{10\%}$"),
        (r"$\frac{a}$", r"$\frac{a}$"),
        (r"\(a $ b\)", r"\textbackslash{}(a \$ b\textbackslash{})"),
        ("a}b {c", r"a\textbraceright{}b {c}"),
        ("line\none", "line one"),
    ],
)
def test_bibtex_from_the_parse_tree(tex: str, bibtex: str) -> None:
    assert tex_to_bibtex(tex) == bibtex
    assert braces_balance(bibtex)


def bibtex_field(value: str) -> str:
    """``value`` as the title of an entry, read back by bibtexparser (which must parse it)."""
    library = bibtexparser.parse_string(f"@misc{{k,\n  title = {{{value}}}\n}}\n")
    assert library.failed_blocks == []
    assert len(library.entries) == 1
    return library.entries[0].fields_dict["title"].value


WORD = st.sampled_from(["graph", "Neural", "BERT", "x", "42", "GPU", "état", "naïve", "of", "Q"])
MATH_BODY = st.sampled_from([
    "x^2", r"O(n \log n)", r"\alpha_1", r"\frac{a}{b}", r"\mathbb{R}^n", r"\{x\}", r"50\%", r"\mathcal O",
    r"a \ne b", r"\sqrt{2}", "H_2O", r"\left\{ x \right.", r"\mathbf{v}_i", r"\text{if } x", r"k \geq 5",
])  # fmt: skip
MATH = st.builds(
    lambda body, delimiters: delimiters[0] + body + delimiters[1],
    MATH_BODY,
    st.sampled_from([("$", "$"), ("\\(", "\\)"), ("$$", "$$"), ("\\[", "\\]")]),
)
SPECIAL = st.sampled_from([
    r"\&", r"\%", r"\$", r"\#", r"\_", r"\{", r"\}", "&", "%", "#", "_", "^", "~", "--", "---", "<", ">",
    r"\ldots", r"\lambda", r"\times", r"\cite{key}", r"\ours{}", r"\'e", r'\"{o}', r"\c{c}", r"\ss{}",
    "``", "''", "`", "'", r"\eg", r"\LaTeX{}", "\\\\", r"\,",
])  # fmt: skip
MACRO = st.sampled_from([
    r"\textit{%s}", r"\emph{%s}", r"\textbf{%s}", r"\texttt{%s}", r"\textsc{%s}", "{%s}", r"{\em %s}",
    r"\tit{%s}", r"\mbox{%s}", r"\footnote{%s}", r"\textsuperscript{%s}",
])  # fmt: skip
SEPARATOR = st.sampled_from(["", " ", " ", ", ", "-", "\n"])
TITLE = st.recursive(
    st.one_of(WORD, MATH, SPECIAL),
    lambda inner: st.builds(
        lambda macro, parts, separators: (
            macro % "".join(p + s for p, s in zip(parts, separators, strict=False))
        ),
        MACRO,
        st.lists(inner, min_size=1, max_size=4),
        st.lists(SEPARATOR, min_size=4, max_size=4),
    ),
    max_leaves=12,
).flatmap(lambda first: st.lists(st.one_of(st.just(first), WORD, MATH, SPECIAL), max_size=6))
TITLES = st.builds(
    lambda parts, separators: "".join(p + s for p, s in zip(parts, separators, strict=False)),
    TITLE,
    st.lists(SEPARATOR, min_size=6, max_size=6),
)
DOLLARS = re.compile(r"(?<!\\)\$(.*?)(?<!\\)\$")
LATEX_CONTEXT = get_default_latex_context_db()  # pylatexenc drops the text of these otherwise
LATEX_CONTEXT.add_context_category(
    "kept",
    prepend=True,
    macros=[
        MacroTextSpec("texttt", "%s"),
        MacroTextSpec("mbox", "%s"),
        MacroTextSpec("LaTeX", "LaTeX"),
        MacroTextSpec("textbraceleft", "{"),  # pylatexenc knows no text braces: it drops them
        MacroTextSpec("textbraceright", "}"),
    ],
)
LATEX_TO_TEXT = LatexNodes2Text(latex_context=LATEX_CONTEXT)
MATH_MARK = "\ue000"  # stands for a math span while the text around it is compared


def words(text: str, maths: Sequence[str] = ()) -> list[str]:
    """The alphanumeric words of ``text``, normalised, its MATH_MARKs replaced by ``maths``."""
    rest = iter(maths)
    text = re.sub(MATH_MARK, lambda _: next(rest), text)
    text = text.replace("\u02c6", "^")  # pylatexenc reads \textasciicircum as U+02C6
    return re.findall(r"\w+", unicodedata.normalize("NFKC", text))


@settings(max_examples=400, deadline=None)
@given(TITLES)
@example(title="graph\\{graph")  # BibTeX writes the brace as \textbraceleft{}
def test_html_plain_and_bibtex_agree(title: str) -> None:
    bibtex = tex_to_bibtex(title)
    assert braces_balance(bibtex)
    assert bibtex_field(bibtex) == bibtex
    html = tex_to_html(title)
    maths = [convert_math(m.span.body, m.span.display) for m in parse(title).maths]
    assert None not in maths
    assert math_elements(html) == len(maths) == len(DOLLARS.findall(bibtex))
    # the page shows \ours{} as TeX; the other two as "ours"
    html = re.sub(r'<code class="tex">\\([A-Za-z]+)(?:\{\})?</code>', r"\1", html)
    html_text = unescape(re.sub(r"<[^>]+>", "", re.sub(r"<math.*?</math>", MATH_MARK, html)))
    bibtex_text = LATEX_TO_TEXT.latex_to_text(DOLLARS.sub(MATH_MARK, bibtex))
    plain = [math.plain for math in maths if math]
    assert words(html_text, plain) == words(tex_to_plain(title)) == words(bibtex_text, plain), (html, bibtex)


# --- deep nesting -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tex",
    [
        "{" * 10_000 + "x" + "}" * 10_000,
        "\\textbf{" * 10_000 + "x" + "}" * 10_000,
        "{\\em{" * 5000 + "x" + "}}" * 5000,
    ],
    ids=["groups", "textbf", "em"],
)
def test_deep_balanced_braces_are_fine(tex: str) -> None:
    assert tex_problems(tex) == []
    assert unescape(re.sub(r"<[^>]+>", "", tex_to_html(tex))) == "x"
    assert tex_to_plain(tex) == "x"
    bibtex = tex_to_bibtex(tex)
    assert braces_balance(bibtex) and "x" in bibtex


@pytest.mark.parametrize(
    ("tex", "problem"),
    [
        ("{" * 5000 + "x", "unbalanced braces: '{' at offset 0 is never closed (and 4999 more)"),
        ("x" + "}" * 5000, "unbalanced braces: unexpected '}' at offset 1 (and 4999 more)"),
        ("\\textbf{" * 5000 + "x", "unbalanced braces: '{' at offset 7 is never closed (and 4999 more)"),
        ("\\(" * 3, "unmatched '\\\\(' at offset 0 (and 2 more)"),
    ],
)
def test_unbalanced_input_gives_one_problem_per_kind(tex: str, problem: str) -> None:
    unbalanced = [p for p in tex_problems(tex) if not p.startswith("unknown macro")]
    assert unbalanced == [problem]
    assert braces_balance(tex_to_bibtex(tex))


# --- safety -------------------------------------------------------------------------------------

ATTACKS = [
    r"$\text{<script>alert(1)</script>}$",
    r"$\mbox{<img src=x onerror=alert(1)>}$",
    r"$\text{</mtext></math><script>alert(1)</script>}$",
    r"$</math><script>alert(1)</script>$",
    r"\[ \text{a & b &amp; &lt; &#x3C;script&#x3E;} \]",
    r"$\text{&#x0;&#xD800;&#x110000;}$",
    "<script>alert(1)</script> & &amp; <img src=x onerror=alert(1)>",
    r"\ours{<script>alert(1)</script>} \textbf{<b onclick=x>}",
    r"\url{javascript:alert(1)<script>} \href{x}{<i>}",
    "</math><script>alert(1)</script>",
    r"$a & b$ $\begin{matrix}<&>\end{matrix}$",
    '"quotes" \'single\' & $\\text{"}$',
    "\x00\x08\x0c\ufffe\U0001fffe\ud800 text",
    r"\href{javascript:alert(1)}{x} \href{ JaVaScRiPt:alert(1)}{y} \url{data:text/html,<script>}",
    r'\href{https://x.org/"onclick="alert(1)}{x} \href{https://x.org/\'onclick=\'a}{y}',
    r"\url{https://x.org/<script>alert(1)</script>} \href{https://a.b}{<img src=x onerror=alert(1)>}",
    r"$\href{javascript:alert(1)}{y}$ $\url{https://x.org/</math><script>}$",
    r"\href{https://a.b}{\href{https://c.d}{nested} \url{https://e.f}}",
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_attacks_are_inert(attack: str) -> None:
    html = tex_to_html(attack)
    audit(html)
    assert not re.search(r"<a [^>]*>(?:(?!</a>).)*<a ", html)  # links never nest
    assert "<a " not in tex_to_title_html(attack)
    assert "javascript" not in "".join(re.findall(r'href="([^"]*)"', html)).lower()
    assert "<img" not in html and "<b " not in html and "<i>" not in html
    html.encode("utf-8")  # no lone surrogates
    tex_to_plain(attack).encode("utf-8")


def test_text_in_math_is_escaped_not_dropped() -> None:
    html = tex_to_html(r"$\text{<script>alert(1)</script>}$")
    assert "<mtext>&lt;script&gt;alert(1)&lt;/script&gt;</mtext>" in html


def test_forbidden_code_points_are_dropped_and_reported() -> None:
    assert tex_to_html("a\x00b\x0c\ufffe") == "ab"
    assert tex_problems("a\x00b") == ["removed 1 control or non-character code point(s)"]


TEX_FRAGMENTS = [
    "$", "$$", "\\(", "\\)", "\\[", "\\]", "{", "}", "\\", "\\\\", "\\$", "\\%", "&", "<", ">",
    '"', "'", "''", "``", "`", "~", "--", "---", "-", "^", "_", "x", "1", " ", "\n",
    "<script>", "</math>", "onerror=", "<img src=x onerror=alert(1)>", "&#x3C;", "&amp;",
    "\\text{", "\\mbox{", "\\emph{", "\\textbf", "\\em ", "\\'", '\\"', "\\c", "\\ours",
    "\\frac", "\\sqrt[", "\\begin{matrix}", "\\end{matrix}", "\\url{", "\\href{", "\\times",
    "\\mathrm{", "\\left(", "\\right)", "\\newcommand", "\x00", "\ud800", "\ufffe", "é",
    "\\href{https://x.org/a}{", "\\url{http://a", "javascript:", "\\cite{", "\\lambda", "\\mathbf{",
    "\\mathcal ", "\\tit{", "\\footnote{", "\\x", "{\\em ", "\\\\",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises_and_is_safe(text: str) -> None:
    audit(tex_to_html(text))
    assert isinstance(tex_to_plain(text), str)
    assert isinstance(tex_problems(text), list)
    assert braces_balance(tex_to_bibtex(text))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TEX_FRAGMENTS), max_size=40).map("".join))
def test_tex_like_text_never_raises_and_is_safe(text: str) -> None:
    html = tex_to_html(text)
    audit(html)
    html.encode("utf-8")
    tex_to_plain(text).encode("utf-8")
    assert all(isinstance(problem, str) for problem in tex_problems(text))
    audit(tex_to_title_html(text))
    bibtex = tex_to_bibtex(text)
    assert braces_balance(bibtex) and "\n" not in bibtex
    assert bibtex_field(bibtex) == bibtex


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_characters="\\{}$~'`")))
def test_text_without_tex_is_only_escaped(text: str) -> None:
    cleaned = "".join(ch for ch in text if ch.isprintable() or ch in "\t\n\r ")
    if "--" in text or cleaned != text:
        return
    assert tex_to_html(text) == Markup.escape(text)
    assert tex_to_plain(text) == " ".join(text.split())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(TEX_FRAGMENTS), max_size=30).map("".join))
def test_output_is_deterministic(text: str) -> None:
    first = (tex_to_html(text), tex_to_plain(text), tex_problems(text))
    parse.cache_clear()
    convert_math.cache_clear()
    assert (tex_to_html(text), tex_to_plain(text), tex_problems(text)) == first


def test_math_spans_do_not_overlap() -> None:
    spans, _ = find_math(r"$a$ \(b\) $$c$$ \[d\] $e")
    assert [(s.body, s.display) for s in spans] == [
        ("a", False),
        ("b", False),
        ("c", True),
        ("d", True),
    ]
    assert all(a.end <= b.start for a, b in pairwise(spans))


# --- performance --------------------------------------------------------------------------------

PATHOLOGICAL = [
    "$" * 20001,
    "\\(" * 20000,
    "{" * 100_000,
    "}" * 100_000,
    "\\em " * 20000,
    "\\" * 100_001,
    "\\'" * 20000,
    "-" * 100_000,
    "\\textbf{" * 5000,
    "$x$" * 10000,
    "$" + "{" * 5000 + "$",
    "$" + "\\frac{1}{" * 200 + "x" + "}" * 200 + "$",
    "a" * 1_000_000,
]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=lambda t: f"{t[:8]!r}x{len(t)}")
def test_pathological_input_is_handled(text: str) -> None:
    """No recursion error, no runaway: every emitter finishes and the HTML is safe (how long
    it takes is a benchmark figure, `benchmarks/bench_tex.py`, never asserted here)."""
    audit(tex_to_html(text))
    assert isinstance(tex_to_plain(text), str)
    assert isinstance(tex_problems(text), list)


def test_identical_math_is_converted_once() -> None:
    convert_math.cache_clear()
    tex_to_html(r"$1.96\times$ and $1.96\times$ and again $1.96\times$")
    assert convert_math.cache_info().misses == 1


# --- validity (needs java and the vnu jar that .ci/install-qa.sh installs) ----------------------

VNU = REPO / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
MATH_SAMPLES = (
    r"\frac{a}{b}", r"\sqrt[3]{x}", r"\begin{array}{|l|r|}a&b\\\hline c&d\end{array}",
    r"\overline{x}\hat{x}\vec{x}", r"\left(x\right)", r"\color{red}x", r"\quad x",
    r"\textbf{x}", r"\boxed{x}", r"\cancel{x}", r"\xrightarrow{a}", r"\binom{a}{b}",
    r"\displaystyle x", r"\phantom{x}", r"\hspace{1cm}", r"\hspace{foo}",
    r"\underbrace{x}_{y}", r"x\\y", r"\sum_{i=1}^n", r"\lim_{x\to0}", r"\not=",
    r"\tiny x", r"\Big(", r"\mathbf{x}", r"\pmod{x}", r"\operatorname{sin}",
    r"\begin{cases}a\\b\end{cases}", r"\mathcal{L}", r"\sideset{}{}\sum", r"\mathop{x}",
)  # fmt: skip
VALIDITY_SAMPLES = [
    *SEED_ABSTRACTS,
    *ATTACKS,
    *(f"${tex}$ and $${tex}$$" for tex in MATH_SAMPLES),
    r"\'{} \c{} {\em} \textsuperscript{th} \url{a} ~ -- ``x''",
    r"\href{https://x.org/a b/é?q=1&r=\%7E}{link} \url{mailto:a@b.org} $\href{https://y.org}{y}$",
    r"$\mathbf{HA} \mathfrak{gl} \mathbb{R} \mathcal O \mathscr{L} \boldsymbol{\alpha}$ \cite{a} `q'",
]


@pytest.mark.qa
@pytest.mark.skipif(not (VNU.exists() and shutil.which("java")), reason="needs java and vnu.jar")
def test_output_is_valid_html5(tmp_path: Path) -> None:
    body = "\n".join(f"<p>{tex_to_html(sample)}</p>" for sample in VALIDITY_SAMPLES)
    page = tmp_path / "tex.html"
    page.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>TeX</title></head>'
        f"<body>{body}</body></html>",
        encoding="utf-8",
    )
    result = subprocess.run(
        ["java", "-jar", str(VNU), "--also-check-svg", str(page)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[:3000]
    assert result.stderr.strip() == ""


def test_audit_catches_markup() -> None:
    """The safety audit used above really fails on injected markup."""
    for bad in ("<script>x</script>", '<mi onclick="x">', "<img src=x>", "<math><foo>"):
        with pytest.raises(AssertionError):
            audit(bad)
    assert unescape("".join(audit("a &amp; <em>b</em>").text)) == "a & b"
