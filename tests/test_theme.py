"""The built-in theme: a project with only seeds builds; its own templates and assets override
the theme file by file."""

from __future__ import annotations

import shutil
from pathlib import Path

from scholarsite import pipeline, theme

from .conftest import ROOT

EXPECTED = ROOT / "tests/fixtures/golden/assets"  # the theme's assets as the golden site has them


def seeds_only(folder: Path) -> Path:
    """A project holding nothing but the shipped seeds."""
    shutil.copytree(ROOT / "seeds", folder / "seeds")
    return folder


def test_a_project_with_only_seeds_builds_with_the_built_in_theme(tmp_path: Path) -> None:
    project = seeds_only(tmp_path / "p")
    pipeline.build(project, workers=1)
    site = project / "site"
    assert (site / "assets/style.css").read_bytes() == (EXPECTED / "style.css").read_bytes()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "assets/style.css" in home and (site / "papers/index.html").is_file()


def test_project_templates_and_assets_override_file_by_file(tmp_path: Path) -> None:
    project = seeds_only(tmp_path / "p")
    base = (theme.TEMPLATES / "base.html").read_text(encoding="utf-8")
    (project / "templates").mkdir()
    (project / "templates/base.html").write_text(base.replace("</footer>", "Our lab.</footer>"))
    (project / "assets").mkdir()
    (project / "assets/style.css").write_text("body { color: teal; }\n")
    (project / "assets/logo.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    pipeline.build(project, workers=1)
    site = project / "site"
    paper = next((site / "papers").glob("*/*/index.html")).read_text(encoding="utf-8")
    assert "Our lab." in paper  # the built-in paper.html extends the project's base.html
    assert (site / "assets/style.css").read_text() == "body { color: teal; }\n"
    assert (site / "assets/logo.svg").is_file()
    assert (site / "assets/site.js").read_bytes() == (EXPECTED / "site.js").read_bytes()


def test_removing_an_override_falls_back_to_the_theme(tmp_path: Path) -> None:
    project = seeds_only(tmp_path / "p")
    (project / "assets").mkdir()
    (project / "assets/style.css").write_text("body { color: teal; }\n")
    pipeline.build(project, workers=1)
    (project / "assets/style.css").unlink()
    report = pipeline.build(project, workers=1).report
    assert "assets/style.css" in report.written
    assert (project / "site/assets/style.css").read_bytes() == (EXPECTED / "style.css").read_bytes()
