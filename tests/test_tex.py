"""TeX in titles and abstracts -> safe HTML (MathML) and plain text."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from html import unescape
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path

import nh3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markupsafe import Markup

from scholarsite.tex.mathml import MATHML_ATTRIBUTES, MATHML_TAGS, convert_math, find_math
from scholarsite.tex.parse import parse
from scholarsite.tex.render import tex_problems, tex_to_html, tex_to_plain

REPO = Path(__file__).resolve().parents[1]
SEED_ABSTRACTS = [
    line.strip()
    for path in sorted((REPO / "seeds").glob("*.txt"))
    for line in path.read_text(encoding="utf-8").splitlines()
    if len(line) > 200
]
HTML_TAGS = {"em", "strong", "code", "sup", "sub"}
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
        if tag == "code":
            assert (name, value) == ("class", "tex")
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


def test_unknown_macro_shown_as_tex_source() -> None:
    assert tex_to_html(r"\ours{} has") == '<code class="tex">\\ours{}</code> has'
    assert tex_to_html(r"see \cite{a<b}") == 'see <code class="tex">\\cite{a&lt;b}</code>'
    assert tex_to_plain(r"see \cite{smith2020}") == "see smith2020"
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
    for example in (r"$1.27\times$", r"$^{167}\mathrm{Er}^{3+}$", "light--matter", r"\ours{}"):
        assert example in seeds


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
        ("it's `fine'", "it&#39;s `fine&#39;"),
        (r"10\% \& \$5 \# \_ \{\}", "10% &amp; $5 # _ {}"),
        ("a~b", f"a{NBSP}b"),
        (r"10\,GB", "10\u202fGB"),
        (r"Schr\"odinger \'{e}cole \c{c}a \v{s} \'{\i}", "Schrödinger école ça š í"),
        (r"\LaTeX{} \ldots", "LaTeX …"),
        (r"\url{https://x.org/a_b~c}", "<code>https://x.org/a_b~c</code>"),
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
    assert tex_to_html(r"$\ours$ x") == '<code class="tex">$\\ours$</code> x'
    assert tex_to_plain(r"$\ours_2$") == "ours_2"
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
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_attacks_are_inert(attack: str) -> None:
    html = tex_to_html(attack)
    audit(html)
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
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises_and_is_safe(text: str) -> None:
    audit(tex_to_html(text))
    assert isinstance(tex_to_plain(text), str)
    assert isinstance(tex_problems(text), list)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TEX_FRAGMENTS), max_size=40).map("".join))
def test_tex_like_text_never_raises_and_is_safe(text: str) -> None:
    html = tex_to_html(text)
    audit(html)
    html.encode("utf-8")
    tex_to_plain(text).encode("utf-8")
    assert all(isinstance(problem, str) for problem in tex_problems(text))


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
def test_pathological_input_is_fast(text: str) -> None:
    start = time.perf_counter()
    audit(tex_to_html(text))
    tex_to_plain(text)
    tex_problems(text)
    assert time.perf_counter() - start < 20


def test_seed_abstracts_are_fast() -> None:
    start = time.perf_counter()
    for _ in range(10):
        parse.cache_clear()
        for abstract in SEED_ABSTRACTS:
            tex_to_html(abstract)
            tex_to_plain(abstract)
    per_abstract = (time.perf_counter() - start) / (10 * len(SEED_ABSTRACTS))
    assert per_abstract < 0.02  # 100,000 abstracts in well under an hour even on a slow CI


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
