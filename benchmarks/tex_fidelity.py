"""How much of a built site's TeX is rendered, and how much is shown as TeX source.

    python benchmarks/tex_fidelity.py PROJECT [--source CHECKOUT] [--workdir DIR] [--jobs N] [--json FILE]

PROJECT is a folder with `seeds/` (or a folder of seed files, as `benchmarks/realworld.py` and
`benchmarks/corpus.py` write). Its seeds are copied into a fresh project (`benchmarks/project.py`:
`site.yaml` with a base URL, and the `content/`, `templates/`, `assets/` of CHECKOUT, default
this repository), which is checked (`build.py check --json`) and built (`build.py build`) with
CHECKOUT's `build.py` and `scholarsite` package (PYTHONPATH=CHECKOUT; the script verifies which
package is imported). When seed files are rejected the build fails as a whole, so the site is then
built once more without them, and the figures say so.

Counted in every paper page (`site/papers/<year>/<slug>/index.html`), in the paper's own title
(`h1`) and abstract, and in the whole page: `<math>` elements (MathML), `<code class="tex">`
elements (TeX shown as source), `<mtext class="tex">` elements (an unknown macro shown as its
source inside math that is otherwise rendered), external links (`<a href="http...">`),
`mathvariant` values other than "normal" (Chromium implements MathML Core, which honours only
`normal`: bold, fraktur, script, ... letters come out plain), and `\\macro`s in visible text
outside `<code>`/`<pre>` and TeX shown as source.
In the plain-text outputs of each page (`<title>`, `<meta>` descriptions, `citation_*` tags,
JSON-LD; the RIS and CSL-JSON downloads, decoded): fields with a leftover backslash, and URLs
holding U+2212 MINUS SIGN (math turned `a-b` into `a−b`). For comparison, math spans
(`$..$`, `$$..$$`, `\\(..\\)`, `\\[..\\]`) and `\\url{`/`\\href{` are counted, approximately,
in the titles and abstracts of `site/data/papers.json`, which keeps the TeX source.
Prints tables and examples; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import Corpus  # noqa: E402
from benchmarks.project import ROOT, write_project  # noqa: E402
from benchmarks.sitedata import read_list  # noqa: E402

MARKER = ".tex-fidelity"
MACRO = re.compile(r"\\[A-Za-z]+")
URL = re.compile(r"(?:https?://|www\.|github\.com/)[^\s\"'<>)\]]+")
SOURCE_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<!\\)\$(?:\\.|[^$\\])+?\$", re.DOTALL)
SOURCE_LINK = re.compile(r"\\(?:url|href)\s*\{")
VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]
)
HIDDEN = frozenset({"script", "style", "template"})
VERBATIM = frozenset({"code", "pre"})
PLAIN_META = ("description", "og:title", "og:description", "citation_title")
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\d+")


# --- counting one page -----------------------------------------------------------------------


@dataclass
class Tally:
    """Counts for one scope (the paper's title and abstract, or the whole page)."""

    maths: int = 0
    display_maths: int = 0
    tex_codes: int = 0
    tex_macros: int = 0
    links: int = 0
    variants: Counter[str] = field(default_factory=Counter)
    macros: Counter[str] = field(default_factory=Counter)
    tex_sources: Counter[str] = field(default_factory=Counter)

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to these."""
        self.maths += other.maths
        self.display_maths += other.display_maths
        self.tex_codes += other.tex_codes
        self.tex_macros += other.tex_macros
        self.links += other.links
        self.variants.update(other.variants)
        self.macros.update(other.macros)
        self.tex_sources.update(other.tex_sources)


class PageScanner(HTMLParser):
    """One paper page: tallies for its own title and abstract and for the page, and its plain text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, opens the paper's own title or abstract)
        self.own = Tally()
        self.page = Tally()
        self.plain: list[tuple[str, str]] = []  # (where, text)
        self.tex_text: list[str] | None = None
        self.json_ld: list[str] | None = None
        self.title: list[str] | None = None

    def inside(self, tags: frozenset[str]) -> bool:
        """Whether an element of ``tags`` is open."""
        return any(tag in tags for tag, _ in self.stack)

    def in_own(self) -> bool:
        """Whether the paper's own title or abstract is open."""
        return any(own for _, own in self.stack)

    def tallies(self) -> list[Tally]:
        """The tallies an element at this point counts in."""
        return [self.page, self.own] if self.in_own() else [self.page]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Count math, TeX source and variants; note plain-text fields; track open elements."""
        attributes = {name: value or "" for name, value in attrs}
        self.count_element(tag, attributes)
        self.note_plain(tag, attributes)
        if tag in VOID:
            return
        own = (tag == "h1" and not self.in_own()) or "abstract-text" in attributes.get("class", "").split()
        self.stack.append((tag, own))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """A self-closed element: counted, never opened."""
        attributes = {name: value or "" for name, value in attrs}
        self.count_element(tag, attributes)
        self.note_plain(tag, attributes)

    def count_element(self, tag: str, attributes: dict[str, str]) -> None:
        """MathML, `<code class="tex">`, `<mtext class="tex">`, external links and non-normal
        `mathvariant`s."""
        tex = "tex" in attributes.get("class", "").split()
        for tally in self.tallies():
            if tag == "math":
                tally.maths += 1
                tally.display_maths += attributes.get("display") == "block"
            tally.tex_codes += tag == "code" and tex
            tally.tex_macros += tag == "mtext" and tex
            tally.links += tag == "a" and attributes.get("href", "").startswith(("http://", "https://"))
            variant = attributes.get("mathvariant")
            if variant and variant != "normal":
                tally.variants[variant] += 1
        if tag in ("code", "mtext") and tex:
            self.tex_text = []

    def note_plain(self, tag: str, attributes: dict[str, str]) -> None:
        """Remember plain-text fields: meta contents, decoded RIS/CSL-JSON data URLs, JSON-LD, title."""
        key = attributes.get("name") or attributes.get("property") or ""
        if tag == "meta" and (key in PLAIN_META or key.startswith("citation_")):
            self.plain.append((key if key in PLAIN_META else "citation_*", attributes.get("content", "")))
        href = attributes.get("href", "")
        if tag == "a" and href.startswith("data:") and not href.startswith("data:application/x-bibtex"):
            self.plain.append(("RIS / CSL-JSON download", urllib.parse.unquote(href.partition(",")[2])))
        if tag == "script" and attributes.get("type") == "application/ld+json":
            self.json_ld = []
        if tag == "title":
            self.title = []

    def handle_endtag(self, tag: str) -> None:
        """Close ``tag`` (and anything left open inside it)."""
        if tag in ("code", "mtext") and self.tex_text is not None:
            source = "".join(self.tex_text)
            for tally in self.tallies():
                tally.tex_sources[source] += 1
            self.tex_text = None
        if tag == "script" and self.json_ld is not None:
            self.plain += [("JSON-LD", text) for text in json_strings(json.loads("".join(self.json_ld)))]
            self.json_ld = None
        if tag == "title" and self.title is not None:
            self.plain.append(("<title>", "".join(self.title)))
            self.title = None
        if any(open_tag == tag for open_tag, _ in self.stack):
            while self.stack.pop()[0] != tag:
                pass

    def handle_data(self, data: str) -> None:
        """Collect text of open fields; count macros in visible text outside code."""
        for sink in (self.tex_text, self.json_ld, self.title):
            if sink is not None:
                sink.append(data)
        if self.inside(HIDDEN) or self.inside(VERBATIM) or (self.title, self.tex_text) != (None, None):
            return
        for macro in MACRO.findall(data):
            for tally in self.tallies():
                tally.macros[macro] += 1


def json_strings(value: object) -> list[str]:
    """Every string in a JSON value, URLs of the site's own pages excepted."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() if key not in ("url", "item") for s in json_strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in json_strings(item)]
    return []


# --- the whole site --------------------------------------------------------------------------


@dataclass
class SiteFigures:
    """Everything counted over the paper pages of one site."""

    pages: int = 0
    source_maths: int = 0
    source_links: int = 0
    own: Tally = field(default_factory=Tally)
    page: Tally = field(default_factory=Tally)
    pages_with: Counter[str] = field(default_factory=Counter)
    plain_fields: Counter[str] = field(default_factory=Counter)
    backslash_fields: Counter[str] = field(default_factory=Counter)
    minus_urls: Counter[str] = field(default_factory=Counter)
    examples: dict[str, Counter[str]] = field(default_factory=dict)

    def example(self, kind: str, text: str) -> None:
        """Remember an example of a problem."""
        self.examples.setdefault(kind, Counter())[text] += 1


REDIRECT = '<meta http-equiv="refresh"'


def paper_pages(site: Path) -> list[Path]:
    """The paper pages: `papers/<year>/<slug>/index.html` (listing pages and the redirects from
    a paper's URL before excluded)."""
    found = (p for p in site.glob("papers/*/*/index.html") if p.parent.parent.name.isdigit())
    return sorted(p for p in found if REDIRECT not in p.read_text(encoding="utf-8")[:1000])


def scan_site(site: Path) -> SiteFigures:
    """Count every paper page of ``site``."""
    maths, links = count_source(site / "data" / "papers.json")
    figures = SiteFigures(source_maths=maths, source_links=links)
    for path in paper_pages(site):
        scanner = PageScanner()
        scanner.feed(path.read_text(encoding="utf-8"))
        scanner.close()
        add_page(figures, scanner)
    return figures


def add_page(figures: SiteFigures, scanner: PageScanner) -> None:
    """Add one scanned page to the figures."""
    figures.pages += 1
    figures.own.add(scanner.own)
    figures.page.add(scanner.page)
    own = scanner.own
    for kind, present in (
        ("MathML", own.maths),
        ("link", own.links),
        ("TeX as source", own.tex_codes),
        ("macro as source in math", own.tex_macros),
        ("non-normal mathvariant", sum(own.variants.values())),
        ("\\macro in visible text", sum(own.macros.values())),
    ):
        figures.pages_with[kind] += bool(present)
    for where, text in scanner.plain:
        check_plain(figures, where, text)


def check_plain(figures: SiteFigures, where: str, text: str) -> None:
    """Leftover backslashes and U+2212 in URLs of one plain-text field."""
    figures.plain_fields[where] += 1
    if "\\" in text:
        figures.backslash_fields[where] += 1
        for match in re.finditer(r".{0,30}\\.{0,30}", text):
            figures.example("plain text with a backslash", match.group())
    for url in URL.findall(text):
        if "\u2212" in url:
            figures.minus_urls[where] += 1
            figures.example("URL with U+2212", url)


def count_source(papers_json: Path) -> tuple[int, int]:
    """(math spans, `\\url`/`\\href`) in the titles and abstracts of `data/papers.json` (0, 0 if missing)."""
    if not papers_json.is_file():
        return 0, 0
    papers = read_list(papers_json.parent, "papers")
    texts = [str(p.get(key, "")) for p in papers for key in ("title", "abstract")]
    maths = sum(len(SOURCE_MATH.findall(text)) for text in texts)
    return maths, sum(len(SOURCE_LINK.findall(text)) for text in texts)


# --- running the checkout --------------------------------------------------------------------


def checkout_env(source: Path) -> dict[str, str]:
    """The environment that makes ``source``'s `scholarsite` package the one imported."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
    return env


def imported_package(source: Path) -> Path:
    """Where `scholarsite` is imported from when running ``source``'s build.py; must be inside it."""
    code = "import scholarsite; print(scholarsite.__file__)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=source, env=checkout_env(source), capture_output=True, text=True
    )
    package = Path(result.stdout.strip()).resolve()
    if result.returncode != 0 or not package.is_relative_to(source.resolve()):
        sys.exit(f"scholarsite imports from {package or result.stderr.strip()}, not from {source}")
    return package


def run_build_py(source: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``source``'s `build.py` with ``args``, run from ``source``."""
    command = [sys.executable, str(source / "build.py"), *args]
    return subprocess.run(command, cwd=source, env=checkout_env(source), capture_output=True, text=True)


def seed_folder(project: Path) -> Path:
    """`PROJECT/seeds` if there is one, else PROJECT itself (a folder of seed files)."""
    return project / "seeds" if (project / "seeds").is_dir() else project


def make_fidelity_project(target: Path, seeds: Path, source: Path) -> Path:
    """A fresh project at ``target`` (a previous one of ours is replaced) holding ``seeds``' files."""
    if target.exists():
        if not (target / MARKER).exists():
            sys.exit(f"{target} exists and was not made by this script; not touching it")
        shutil.rmtree(target)
    write_project(target, Corpus([], [], []), source)
    (target / MARKER).write_text("made by benchmarks/tex_fidelity.py\n", encoding="utf-8")
    for path in sorted(seeds.iterdir()):
        if path.is_file():
            shutil.copyfile(path, target / "seeds" / path.name)
    return target


@dataclass
class CheckFigures:
    """What `build.py check --json` reported."""

    exit_code: int
    counts: dict[str, int]
    rejected: list[str]
    messages: Counter[tuple[str, str]]
    errors: list[str]


def run_check(source: Path, project: Path) -> CheckFigures:
    """`build.py check --json` on the project: counts, rejected seed files, message patterns."""
    result = run_build_py(source, "check", "--json", "--project", str(project))
    report = json.loads(result.stdout)
    diagnostics = report.get("diagnostics", [])
    rejected = sorted({d["path"] for d in diagnostics if d["severity"] == "error"})
    messages = Counter((d["severity"], QUOTED.sub("…", d["message"])) for d in diagnostics)
    counts = {key: int(report.get(key, 0)) for key in ("errors", "warnings", "notes", "papers", "authors")}
    errors = [f"{d['path']}:{d['line']}: {d['message']}" for d in diagnostics if d["severity"] == "error"]
    return CheckFigures(result.returncode, counts, rejected, messages, errors)


def build_site(source: Path, project: Path, rejected: list[str], jobs: int | None) -> tuple[str, list[str]]:
    """Build the project; if that fails and seeds are rejected, build again without them.

    Returns (how the build went, the seed files left out)."""
    args = ["build", "--project", str(project), "--quiet"] + ([] if jobs is None else ["--jobs", str(jobs)])
    first = run_build_py(source, *args)
    if first.returncode == 0:
        return "built", []
    if not rejected:
        sys.exit(f"build failed:\n{first.stderr[-3000:]}")
    for shown in rejected:
        (project / shown).unlink(missing_ok=True)
    second = run_build_py(source, *args)
    if second.returncode != 0:
        sys.exit(f"build failed even without the rejected seeds:\n{second.stderr[-3000:]}")
    return f"build failed; built again without the {len(rejected)} rejected seed file(s)", rejected


# --- report ----------------------------------------------------------------------------------


def table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


FIGURE_HEADER = ("figure", "title + abstract", "whole page", "pages (title + abstract)")
PLAIN_HEADER = ("plain-text field", "fields", "with a backslash", "URLs with U+2212")


def figure_rows(figures: SiteFigures) -> list[tuple[str, ...]]:
    """Rows of the main table: figure, title + abstract, whole page, pages affected."""
    own, page, with_ = figures.own, figures.page, figures.pages_with
    rows = [
        ("`<math>` (MathML)", own.maths, page.maths, with_["MathML"]),
        ("… of which display", own.display_maths, page.display_maths, ""),
        ('`<code class="tex">` (TeX shown as source)', own.tex_codes, page.tex_codes, with_["TeX as source"]),
        ('`<mtext class="tex">` (a macro shown as source in rendered math)', own.tex_macros, page.tex_macros,
         with_["macro as source in math"]),
        ("external links `<a href=\"http…\">`", own.links, page.links, with_["link"]),
        ("`mathvariant` other than normal", sum(own.variants.values()), sum(page.variants.values()),
         with_["non-normal mathvariant"]),
        ("`\\macro` in visible text outside code", sum(own.macros.values()), sum(page.macros.values()),
         with_["\\macro in visible text"]),
    ]  # fmt: skip
    head = [("paper pages", str(figures.pages), "", ""),
            ("math spans in the source (approx.)", str(figures.source_maths), "", ""),
            ("`\\url`/`\\href` in the source", str(figures.source_links), "", "")]  # fmt: skip
    return head + [(name, str(a), str(b), str(c)) for name, a, b, c in rows]


def plain_rows(figures: SiteFigures) -> list[tuple[str, ...]]:
    """Rows of the plain-text table: field, fields seen, with a backslash, URLs with U+2212."""
    return [
        (f"`{where}`", str(total), str(figures.backslash_fields[where]), str(figures.minus_urls[where]))
        for where, total in sorted(figures.plain_fields.items())
    ]


def by_pattern(sources: Counter[str]) -> Counter[str]:
    """TeX shown as source, grouped by its first macro (`math: \\url` for a math span)."""
    patterns: Counter[str] = Counter()
    for source, count in sources.items():
        macro = MACRO.search(source)
        name = macro.group() if macro else source[:20]
        patterns[f"math: {name}" if source.startswith(("$", "\\(", "\\[")) else name] += count
    return patterns


def top(counter: Counter[str], limit: int) -> str:
    """The most common entries of ``counter`` as a Markdown list."""
    return "\n".join(f"- {count} × `{text}`" for text, count in counter.most_common(limit)) or "- none"


def report(check: CheckFigures, how: str, left_out: list[str], figures: SiteFigures, limit: int) -> str:
    """The whole printed report."""
    counts = check.counts
    parts = [
        f"check: exit {check.exit_code}; {counts['errors']} errors, {counts['warnings']} warnings, "
        f"{counts['notes']} notes; {counts['authors']} authors, {counts['papers']} papers; "
        f"{len(check.rejected)} seed file(s) rejected",
        "\ncheck messages (quoted text and numbers as …):\n"
        + "\n".join(f"- {n} × {sev}: {msg}" for (sev, msg), n in check.messages.most_common(limit)),
        "\nerrors:\n" + ("\n".join(f"- {e}" for e in check.errors) or "- none"),
        f"\nbuild: {how}" + (f" ({', '.join(left_out)})" if left_out else ""),
        "\n" + table(figure_rows(figures), FIGURE_HEADER),
        "\n" + table(plain_rows(figures), PLAIN_HEADER),
        "\n`mathvariant` values (title + abstract):\n" + top(figures.own.variants, limit),
        "\nTeX shown as source, by first macro (title + abstract):\n"
        + top(by_pattern(figures.own.tex_sources), limit),
        "\nTeX shown as source, most frequent (title + abstract):\n" + top(figures.own.tex_sources, limit),
        "\n`\\macro`s in visible text (title + abstract):\n" + top(figures.own.macros, limit),
    ]
    parts += [f"\n{kind}:\n" + top(counter, limit) for kind, counter in sorted(figures.examples.items())]
    return "\n".join(parts)


def as_json(check: CheckFigures, how: str, left_out: list[str], figures: SiteFigures) -> dict[str, object]:
    """The figures as plain data."""
    return {
        "check": {**check.counts, "exit": check.exit_code, "rejected": check.rejected,
                  "error_list": check.errors,
                  "messages": [[s, m, n] for (s, m), n in check.messages.most_common()]},
        "build": how,
        "left_out": left_out,
        "pages": figures.pages,
        "source_maths": figures.source_maths,
        "source_links": figures.source_links,
        "title_and_abstract": tally_data(figures.own),
        "whole_page": tally_data(figures.page),
        "pages_with": dict(figures.pages_with),
        "plain_fields": dict(figures.plain_fields),
        "plain_with_backslash": dict(figures.backslash_fields),
        "urls_with_minus": dict(figures.minus_urls),
    }  # fmt: skip


def tally_data(tally: Tally) -> dict[str, object]:
    """One tally as plain data."""
    return {
        "maths": tally.maths,
        "display_maths": tally.display_maths,
        "tex_codes": tally.tex_codes,
        "tex_macros": tally.tex_macros,
        "links": tally.links,
        "variants": dict(tally.variants),
        "tex_source_patterns": dict(by_pattern(tally.tex_sources)),
        "macros": dict(tally.macros),
    }


def measure(project: Path, source: Path, work: Path, jobs: int | None, limit: int) -> dict[str, object]:
    """Check, build and count; print the report and return the figures."""
    package = imported_package(source)
    print(f"scholarsite from {package}")
    target = make_fidelity_project(work / "project", seed_folder(project), source)
    check = run_check(source, target)
    how, left_out = build_site(source, target, check.rejected, jobs)
    figures = scan_site(target / "site")
    print(report(check, how, left_out, figures, limit))
    return as_json(check, how, left_out, figures)


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path, help="a folder with seeds/, or a folder of seed files")
    parser.add_argument("--source", type=Path, default=ROOT, help="scholarsite checkout to build with")
    parser.add_argument("--workdir", type=Path, default=None, help="keep the project and site here")
    parser.add_argument("--jobs", type=int, default=None, help="build.py build --jobs")
    parser.add_argument("--examples", type=int, default=12, help="how many examples of each kind")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    source = args.source.resolve()
    with tempfile.TemporaryDirectory(prefix="tex-fidelity-") as scratch:
        work = args.workdir.resolve() if args.workdir else Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        data = measure(args.project.resolve(), source, work, args.jobs, args.examples)
    if args.json:
        args.json.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
