"""Buildable benchmark projects from one generated corpus: a scholarsite project and a Hugo site.

    python benchmarks/project.py OUT_DIR --authors 200 --papers 1000 [--seed 1] [--hugo-theme bare]

writes OUT_DIR/scholarsite (build with `python build.py --project OUT_DIR/scholarsite`) and
OUT_DIR/hugo (build with `hugo --source OUT_DIR/hugo`). Both hold the same records: every
distinct paper of `benchmarks.corpus` is one Hugo content file, with the authors who list it.
The Hugo layouts are committed and copied into the site, so that a benchmark can edit the copy:
theme "full" (`benchmarks/hugo/`) makes scholarsite's page set; theme "bare"
(`benchmarks/hugo-bare/`) is a minimal theme, plain lists, with the same pages, pagination,
permalinks and taxonomies but no related papers, math rendering or data files.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import Corpus, Paper, make_corpus  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
TITLE = "Benchmark"
BASE_URL = "https://example.org/bench/"
PROJECT_FOLDERS = ("content", "templates", "assets")
SLUG_LIMIT = 80

# Both themes' config: the same pages, pagination, permalinks, taxonomies and feeds.
HUGO_CONFIG = f"""\
baseURL = {json.dumps(BASE_URL)}
title = {json.dumps(TITLE)}
locale = "en"
capitalizeListTitles = false
pluralizeListTitles = false

[pagination]
  pagerSize = 100          # scholarsite's papers_per_page
  disableAliases = true    # no page/1/ redirects: scholarsite writes none

[taxonomies]
  author = "authors"
  subject = "subjects"
  year = "years"

[permalinks.page]
  papers = "/papers/:year/:contentbasename/"

[services.rss]
  limit = 20               # scholarsite's feed_entries
"""
# The full theme's own: TeX for its math render hook, related papers.
FULL_THEME_CONFIG = """
[markup.goldmark.extensions.passthrough]
  enable = true
  [markup.goldmark.extensions.passthrough.delimiters]
    inline = [["$", "$"]]

[related]
  includeNewer = true
  threshold = 1
  toLower = false
  [[related.indices]]
    name = "authors"
    weight = 100
  [[related.indices]]
    name = "subjects"
    weight = 10
"""


@dataclass(frozen=True)
class HugoTheme:
    """A Hugo layout set: its folder (``layouts/``, maybe ``data/``), its config and paper template."""

    folder: Path
    config: str
    paper_template: str  # the template of paper pages, relative to the site


HUGO_THEMES = {
    "full": HugoTheme(BENCHMARKS / "hugo", HUGO_CONFIG + FULL_THEME_CONFIG, "layouts/papers/page.html"),
    "bare": HugoTheme(BENCHMARKS / "hugo-bare", HUGO_CONFIG, "layouts/page.html"),
}


# --- scholarsite -----------------------------------------------------------------------------


def make_project(target: Path, authors: int, papers: int, seed: int = 1, source: Path = ROOT) -> Path:
    """Write a buildable scholarsite project for a generated corpus into ``target``.

    ``source`` is the scholarsite checkout whose ``content/``, ``templates/`` and ``assets/`` are
    copied (folders it lacks are skipped). Returns ``target``.
    """
    return write_project(target, make_corpus(authors, papers, seed), source)


def write_project(target: Path, corpus: Corpus, source: Path = ROOT) -> Path:
    """`make_project` for a corpus already generated."""
    target.mkdir(parents=True, exist_ok=True)
    for folder in PROJECT_FOLDERS:
        if (source / folder).is_dir():
            shutil.copytree(source / folder, target / folder, dirs_exist_ok=True)
    (target / "site.yaml").write_text(f"title: {TITLE}\nbase_url: {BASE_URL}\n", encoding="utf-8")
    corpus.write_seeds(target / "seeds")
    return target


# --- Hugo ------------------------------------------------------------------------------------


def make_hugo_project(
    target: Path, authors: int, papers: int, seed: int = 1, source: Path = ROOT, theme: str = "full"
) -> Path:
    """Write a Hugo site with the same records as `make_project` into ``target``. Returns it.

    ``source`` gives the stylesheet and scripts (its ``assets/``, served as ``/assets/``) and
    the home introduction and pages (its ``content/*.md``), as scholarsite would use them.
    ``theme`` names the layouts and config, a key of `HUGO_THEMES`.
    """
    return write_hugo_project(target, make_corpus(authors, papers, seed), source, theme)


def write_hugo_project(target: Path, corpus: Corpus, source: Path = ROOT, theme: str = "full") -> Path:
    """`make_hugo_project` for a corpus already generated."""
    chosen = HUGO_THEMES[theme]
    target.mkdir(parents=True, exist_ok=True)
    (target / "hugo.toml").write_text(chosen.config, encoding="utf-8")
    for folder in ("layouts", "data"):
        if (chosen.folder / folder).is_dir():
            shutil.copytree(chosen.folder / folder, target / folder, dirs_exist_ok=True)
    if (source / "assets").is_dir():
        shutil.copytree(source / "assets", target / "static" / "assets", dirs_exist_ok=True)
    write_hugo_pages(target / "content", source / "content")
    papers = target / "content" / "papers"
    papers.mkdir(parents=True, exist_ok=True)
    (papers / "_index.md").write_text('+++\ntitle = "Papers"\n+++\n', encoding="utf-8")
    slugs = paper_slugs(corpus.papers)
    for paper, slug in zip(corpus.papers, slugs, strict=True):
        names = [corpus.names[i] for i in paper.authors]
        (papers / f"{slug}.md").write_text(paper_markdown(paper, names), encoding="utf-8")
    return target


def write_hugo_pages(content: Path, source_content: Path) -> None:
    """Home introduction, taxonomy titles and the project's own pages (about, ...)."""
    content.mkdir(parents=True, exist_ok=True)
    intro = ""
    if (source_content / "index.md").is_file():
        intro = strip_front_matter(source_content / "index.md")
    (content / "_index.md").write_text(f"+++\ntitle = {json.dumps(TITLE)}\n+++\n{intro}", encoding="utf-8")
    for plural, title in (("authors", "Authors"), ("subjects", "Subjects"), ("years", "Years")):
        (content / plural).mkdir(exist_ok=True)
        (content / plural / "_index.md").write_text(f'+++\ntitle = "{title}"\n+++\n', encoding="utf-8")
    if source_content.is_dir():
        for page in sorted(source_content.glob("*.md")):
            if page.name != "index.md":
                shutil.copyfile(page, content / page.name)


def strip_front_matter(path: Path) -> str:
    """The body of a Markdown file with YAML front matter."""
    text = path.read_text(encoding="utf-8")
    match = re.match(r"---\n.*?\n---\n", text, re.DOTALL)
    return text[match.end() :] if match else text


def paper_markdown(paper: Paper, names: list[str], abstract: str | None = None) -> str:
    """One paper's content file: TOML front matter and the abstract (``abstract`` overrides it)."""
    fields = {
        "title": paper.title,
        "year": paper.year,
        "date": f"{paper.year}-01-01",
        "authors": names,
        "subjects": list(paper.subjects),
        "years": [str(paper.year)],
    }
    front = "\n".join(f"{key} = {json.dumps(value, ensure_ascii=False)}" for key, value in fields.items())
    body = markdown_text(paper.abstract if abstract is None else abstract)
    return f"+++\n{front}\n+++\n{body}\n"


def markdown_text(text: str) -> str:
    """Plain text (with $...$ TeX) as Markdown: `<` and `&` are text here, not HTML."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


def slugify(text: str) -> str:
    """ASCII, lowercase, at most 80 characters; a cut or empty slug ends in a hash of the text."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    if slug and len(slug) <= SLUG_LIMIT:
        return slug
    digest = hashlib.sha1(text.encode()).hexdigest()[:8]
    return f"{slug[: SLUG_LIMIT - 9].rstrip('-')}-{digest}".lstrip("-")


def paper_slugs(papers: list[Paper]) -> list[str]:
    """A distinct file name (without .md) per paper, from its title."""
    slugs: list[str] = []
    seen: set[str] = set()
    for paper in papers:
        slug = slugify(paper.title)
        if slug in seen:
            slug = slugify(f"{paper.title} {paper.year} {paper.number}")
        seen.add(slug)
        slugs.append(slug)
    return slugs


def main() -> None:
    """Command line: write both projects."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--authors", type=int, default=200)
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--source", type=Path, default=ROOT, help="scholarsite checkout to copy from")
    parser.add_argument("--hugo-theme", choices=sorted(HUGO_THEMES), default="full", help="Hugo layouts")
    args = parser.parse_args()
    corpus = make_corpus(args.authors, args.papers, args.seed)
    print(write_project(args.out / "scholarsite", corpus, args.source))
    print(write_hugo_project(args.out / "hugo", corpus, args.source, args.hugo_theme))


if __name__ == "__main__":
    main()
