"""The build reports the site's size and warns, naming what takes the room, when the site passes
`max_site_mb` or `max_files` (issue 27, budgets)."""

from __future__ import annotations

from pathlib import Path

from scholarsite import pipeline
from scholarsite.errors import Severity
from scholarsite.write import budget

from .conftest import make_project


def test_parts_name_the_kind_of_file() -> None:
    assert budget.part_of("papers/2025/comet/index.html") == "papers/…/index.html"
    assert budget.part_of("authors/ada/page/2/index.html") == "authors/…/index.html"
    assert budget.part_of("authors/ada/feed.xml") == "authors/…/feed.xml"
    assert budget.part_of("pagefind/0/fragment/en_1a2b.pf_fragment") == "pagefind/…/*.pf_fragment"
    assert budget.part_of("sitemap.xml") == "sitemap.xml"


def test_a_site_within_its_budget_is_not_warned_about(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    result = pipeline.build(project)
    size = result.size
    assert size is not None and size.files == len(result.report.written) > 10
    on_disk = sum(
        p.stat().st_size
        for p in (project / "site").rglob("*")
        if p.is_file() and ".scholarsite-" not in p.name
    )
    assert size.bytes == on_disk
    assert result.summary().endswith(size.summary()) and "MiB in" in result.summary()
    assert not [d for d in result.diagnostics if "max_" in d.message]


def test_passing_a_budget_warns_naming_the_largest_parts(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", site_yaml="title: x\nmax_site_mb: 1\nmax_files: 10\n")
    (project / "static").mkdir()
    (project / "static/poster.pdf").write_bytes(b"%PDF" + b"0" * 2**19)  # the example site is 0.8 MB
    result = pipeline.build(project)
    assert result.size is not None and result.size.bytes > 2**20
    warned = {d.message.split(",")[0]: d for d in result.diagnostics if d.path == "site.yaml"}
    over_mb = next(d for m, d in warned.items() if "over max_site_mb" in d.message)
    over_files = next(d for m, d in warned.items() if "over max_files (10)" in d.message)
    assert over_mb.severity == over_files.severity == Severity.WARNING
    largest = max(result.size.part_bytes, key=result.size.part_bytes.__getitem__)
    assert f"the most: {largest} " in over_mb.message
    assert "papers/…/index.html" in over_files.message and "s3://" in over_files.hint
