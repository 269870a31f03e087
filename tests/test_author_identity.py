"""Author identity declared on author pages: aliases merge seeds and redirect, `seeds:` keeps two
people with one name apart, ORCID and profiles reach the page and JSON-LD."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.errors import BuildError

from .conftest import make_project

ADA = """arXiv subjects

{name}

Publications and source records attributed to {name}.

1 recordsLinked to original sources

arXiv{year}

{title}

An abstract about {title}.

cs.ET↗
"""


def seed(project: Path, file: str, name: str, title: str, year: int = 2020) -> None:
    """A one-record seed file."""
    (project / "seeds" / file).write_text(ADA.format(name=name, title=title, year=year), encoding="utf-8")


def author_page(project: Path, slug: str, front: str) -> None:
    """content/authors/<slug>.md with the given front matter."""
    folder = project / "content/authors"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{slug}.md").write_text(f"---\n{front}---\nA bio.\n", encoding="utf-8")


def jsonld_person(page: Path) -> dict:
    """The Person JSON-LD of an author page."""
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page.read_text(), re.S)
    return next(d for d in map(json.loads, blocks) if d.get("@type") == "Person")


def test_an_alias_merges_seeds_and_its_url_redirects(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    seed(project, "ada.txt", "Ada Lovelace", "Notes on the engine")
    seed(project, "ada2.txt", "A. A. Lovelace", "Sketch of the engine")
    orcid, profile = "0000-0002-1825-0097", "https://scholar.example.org/ada"
    author_page(
        project, "ada-lovelace", f"aliases: [A. A. Lovelace]\norcid: {orcid}\nprofiles: [{profile}]\n"
    )
    pipeline.build(project, workers=1)
    site = project / "site"
    page = site / "authors/ada-lovelace/index.html"
    html = page.read_text()
    assert "Notes on the engine" in html and "Sketch of the engine" in html
    assert f'href="{profile}"' in html and "A. A. Lovelace" in html
    person = jsonld_person(page)
    assert f"https://orcid.org/{orcid}" in person["sameAs"] and profile in person["sameAs"]
    moved = (site / "authors/a-a-lovelace/index.html").read_text()
    assert 'http-equiv="refresh" content="0; url=../ada-lovelace/"' in moved


def test_seed_claims_keep_two_people_with_one_name_apart(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    seed(project, "li-physics.txt", "Wei Li", "Quantum dots")
    seed(project, "li-biology.txt", "Wei Li", "Protein folding")
    author_page(project, "wei-li-physics", "seeds: [li-physics.txt]\n")
    pipeline.build(project, workers=1)
    site = project / "site"
    physics = (site / "authors/wei-li-physics/index.html").read_text()
    other = (site / "authors/wei-li/index.html").read_text()
    assert "Quantum dots" in physics and "Protein folding" not in physics
    assert "Protein folding" in other and "Quantum dots" not in other


@pytest.mark.parametrize(
    "front, message",
    [
        ("seeds: [nowhere.txt]\n", "no accepted seed file"),
        ("aliases: Ada\n", "must be a list"),
        ("profiles: [not a url]\n", "http(s) URLs"),
    ],
)
def test_bad_identity_declarations_are_errors(tmp_path: Path, front: str, message: str) -> None:
    project = make_project(tmp_path / "p")
    seed(project, "ada.txt", "Ada Lovelace", "Notes on the engine")
    author_page(project, "ada-lovelace", front)
    with pytest.raises(BuildError, match=re.escape(message)):
        pipeline.build(project, workers=1)
    assert sorted(pipeline.check(project, workers=1).diagnostics) == sorted(_errors(project))


def _errors(project: Path) -> tuple:
    """The diagnostics a build reports."""
    try:
        return pipeline.build(project, workers=1).diagnostics
    except BuildError as exc:
        return exc.diagnostics
