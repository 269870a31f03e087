"""The quality gate over real builds: the shipped seeds and a generated collection pass every
independent checker, and a defect planted in a copy of the real site is caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.corpus import generate
from scholarsite import pipeline
from tools import qa

from .conftest import BASE_URL_YAML, ROOT, make_project

pytestmark = pytest.mark.qa
ARTIFACTS = ROOT / "qa-artifacts" / "screenshots"


def assert_gate_passes(site: Path, screenshots: Path) -> None:
    results = qa.run_all(site, base_path="/scholarsite/", screenshots=screenshots)
    report = qa.format_report(results, verbose=True)
    print(report)
    assert all(r.ok for r in results), report
    assert {r.name for r in results} >= {
        "html",
        "links",
        "anchors",
        "paths",
        "a11y",
        "layout",
        "sitemap",
        "jsonld",
        "feeds",
    }


def test_gate_passes_on_the_shipped_seeds(shipped_site: Path) -> None:
    assert_gate_passes(shipped_site, ARTIFACTS / "shipped")
    shots = sorted(p.name for p in (ARTIFACTS / "shipped").glob("*.png"))
    assert any("390" in s for s in shots) and any("1280" in s for s in shots)


def test_gate_passes_on_a_generated_collection(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    generate(seeds, authors=150, papers=500, seed=7)
    project = make_project(tmp_path / "project", seeds, BASE_URL_YAML)
    pipeline.build(project)
    assert len(list((project / "site/authors").glob("*/index.html"))) >= 100
    assert_gate_passes(project / "site", ARTIFACTS / "generated")


@pytest.fixture
def scratch(shipped_site: Path, tmp_path: Path) -> Path:
    """A scratch copy of the real site, to plant defects in."""
    return Path(shutil.copytree(shipped_site, tmp_path / "site"))


def plant(page: Path, old: str, new: str) -> None:
    text = page.read_text(encoding="utf-8")
    assert old in text
    page.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_planted_broken_link_is_caught(scratch: Path) -> None:
    plant(scratch / "authors/ziheng-jiang/index.html", 'href="../ningxin-zheng/"', 'href="../nobody-here/"')
    assert not qa.check_links(scratch).ok


def test_planted_invalid_html_is_caught(scratch: Path) -> None:
    plant(scratch / "about/index.html", "<h1>", "<h1><div><span></div>")
    assert not qa.check_html(scratch).ok


def test_planted_missing_alt_and_low_contrast_are_caught(scratch: Path) -> None:
    plant(scratch / "index.html", "<h1>", '<img src="assets/favicon.svg"><p class="faint">faint</p><h1>')
    with (scratch / "assets/style.css").open("a", encoding="utf-8") as css:  # the CSP refuses style=""
        css.write("\n.faint { color: #eee; }\n")
    result = qa.check_accessibility(scratch, pages=["/scholarsite/"])
    text = " ".join(result.problems)
    assert "image-alt" in text and "color-contrast" in text
