"""Reading a project: everything the build takes from its folder, with the problems found."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from scholarsite.errors import BuildError, Diagnostic, note
from scholarsite.inputs.assets import read_assets, read_static
from scholarsite.inputs.cache import ParseCache
from scholarsite.inputs.config import NONE_GIVEN, Config, Overrides, load_config
from scholarsite.inputs.content import Page, read_pages
from scholarsite.inputs.files import Hashed
from scholarsite.inputs.freshness import latest_possible_year
from scholarsite.inputs.lineage_file import Lineage, read_lineage
from scholarsite.inputs.memo import Memo
from scholarsite.inputs.seeds import SeedParse, read_seeds, remembered_math
from scholarsite.inputs.sources import SOURCES_FILE, Sources, read_sources
from scholarsite.inputs.sources_cache import SOURCES_CACHE, read_sources_kept
from scholarsite.inputs.templates import TemplateFile, read_templates
from scholarsite.tex import render as tex

FEEDS_NEED_BASE_URL = "no base_url: Atom feeds, sitemap and canonical links are not written"


@dataclass
class Project:
    """Everything read from a project folder, with the problems found while reading."""

    root: Path
    config: Config
    seeds: list[SeedParse]
    pages: list[Page]
    author_pages: list[Page]
    cache: ParseCache
    diagnostics: list[Diagnostic] = field(default_factory=list)
    sources: Sources = field(default_factory=Sources)
    assets: dict[str, bytes] = field(default_factory=dict)  # by site path (`assets/style.css`)
    static: dict[str, Hashed] = field(default_factory=dict)  # static/'s files, by site path
    lineage: dict[str, Lineage] = field(default_factory=dict)  # lineage.txt: the pages papers had
    templates: dict[str, TemplateFile] = field(default_factory=dict)  # templates/, by name


def load_project(
    root: Path,
    cache: ParseCache | None = None,
    overrides: Overrides = NONE_GIVEN,
    recorded: Mapping[str, bytes] | None = None,
    keep_sources: bool = False,
    memo: Memo | None = None,
) -> Project:
    """Read site.yaml (with the settings given over it), seeds/, content/, templates/,
    sources.yaml and lineage.txt; never raises for bad input, collects problems.

    Seeds go through `cache` (by default the project's `.scholarsite-cache/`), so unchanged
    seeds are not parsed again; the caller decides whether to save it. A seed whose digest
    `recorded` knows by its project path (the look's, `freshness.InputFiles.regular`) and
    whose parse the cache holds is not even read. With `keep_sources` (a build that keeps its
    caches), sources.yaml's entries go through their cache (`inputs.sources_cache`), read and
    written at once. The pages of content/ are rendered unless `memo` holds them.
    """
    diagnostics: list[Diagnostic] = []
    try:
        config, problems = load_config(root / "site.yaml", "site.yaml", overrides, memo)
        diagnostics += problems
    except BuildError as exc:
        config = Config()
        diagnostics.extend(exc.diagnostics)
    cache = cache or ParseCache(root)
    year = latest_possible_year()
    math = remembered_math(memo) if memo is not None else tex.math_check
    parses, notes = read_seeds(
        root / "seeds",
        "seeds",
        lambda data, shown: cache.parse(data, shown, year, math),
        lambda shown: cache.reused(shown, recorded or {}, year),
    )
    diagnostics += notes + [d for parse in parses for d in parse.diagnostics]
    diagnostics += [cache.problem] if cache.problem else []
    content, author_pages, problems = read_pages(root / "content", "content", config.unsafe_html, memo)
    diagnostics += problems
    if keep_sources:  # with the look's digest of the file
        sources, problems = read_sources_kept(root, root / SOURCES_CACHE, (recorded or {}).get(SOURCES_FILE))
    else:
        sources, problems = read_sources(root)
    diagnostics += problems
    lineage, problems = read_lineage(root, cache if cache.on_disk else None)
    diagnostics += problems
    assets, problems = read_assets(root / "assets")
    diagnostics += problems
    static, problems = read_static(root, config.static_file_mb)
    diagnostics += problems
    if not config.base_url:
        diagnostics.append(note("site.yaml", 0, FEEDS_NEED_BASE_URL))
    return Project(
        root,
        config,
        parses,
        content,
        author_pages,
        cache,
        sorted(diagnostics),
        sources,
        assets,
        static,
        lineage,
        read_templates(root),
    )
