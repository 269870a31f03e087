"""One paper, different abstracts in different seeds: the longest is shown, whatever the file
names; `check` notes it naming both records; `add` says which abstract a new seed's replaces or
leaves shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scholarsite import cli, pipeline
from scholarsite.errors import Severity
from scholarsite.inputs.seeds import parse_seed
from scholarsite.model.model import Site, build_model

TITLE = "Sketch of the Analytical Engine"
SHORT = "A translation of the memoir."
LONG = "A translation of the memoir on the engine, with notes three times its length on its cards."


def seed(name: str, abstract: str, title: str = TITLE) -> str:
    """A seed of one author listing one 2024 paper (its record starts on line 9)."""
    return (
        f"arXiv subjects\n\n{name}\n\nPublications and source records attributed to {name}.\n\n"
        f"1 recordLinked to original sources\n\narXiv2024\n\n{title}\n\n{abstract}\n\ncs.ET↗\n"
    )


def model(seeds: dict[str, str]) -> Site:
    """The model of seed files given as {file name: text}."""
    parses = [parse_seed(text.encode(), f"seeds/{name}", latest_year=2027) for name, text in seeds.items()]
    return build_model([p.author for p in parses if p.author is not None])


@pytest.mark.parametrize("names", [("a.txt", "b.txt"), ("b.txt", "a.txt")])
def test_the_longest_abstract_is_shown_whatever_the_file_names(names: tuple[str, str]) -> None:
    short_file, long_file = names
    site = model({short_file: seed("Ada Lovelace", SHORT), long_file: seed("Charles Babbage", LONG)})
    (paper,) = site.papers
    assert paper.abstract == LONG and len(paper.authors) == 2
    assert [v.where.path for v in paper.versions] == ["seeds/a.txt", "seeds/b.txt"]


def test_equally_long_abstracts_the_first_in_alphabetical_order() -> None:
    first, second = "An abstract of the same length: B.", "An abstract of the same length: A."
    for files in (("a.txt", "b.txt"), ("b.txt", "a.txt")):
        site = model({files[0]: seed("Ada Lovelace", first), files[1]: seed("Charles Babbage", second)})
        assert site.papers[0].abstract == second


def test_an_abstract_wrapped_differently_is_the_same_abstract() -> None:
    site = model(
        {
            "a.txt": seed("Ada Lovelace", LONG),
            "b.txt": seed("Charles Babbage", LONG.replace("engine", "en\u00adgine")),
        }
    )
    (paper,) = site.papers
    assert paper.abstract == LONG and len(paper.versions) == 1  # a soft hyphen is not a difference


def test_one_authors_two_abstracts_stay_two_papers() -> None:
    two = (
        seed("Ada Lovelace", SHORT).replace("1 record", "2 records")
        + "\n"
        + seed("X", LONG).split("\n\n", 4)[4]
    )
    site = model({"a.txt": two})
    assert sorted(p.abstract for p in site.papers) == sorted([SHORT, LONG])
    assert all(len(p.versions) == 1 for p in site.papers)


def project(tmp_path: Path, seeds: dict[str, str]) -> Path:
    """A project holding the seeds (the built-in theme)."""
    root = tmp_path / "lab"
    (root / "seeds").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Lab\n")
    for name, text in seeds.items():
        (root / "seeds" / name).write_text(text, encoding="utf-8")
    return root


def test_check_notes_the_conflict_naming_both_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = project(
        tmp_path, {"ada.txt": seed("Ada Lovelace", LONG), "babbage.txt": seed("Charles Babbage", SHORT)}
    )
    notes = [d for d in pipeline.check(root).diagnostics if "another abstract" in d.message]
    assert [(d.severity, d.path, d.line) for d in notes] == [(Severity.NOTE, "seeds/ada.txt", 9)]
    assert "seeds/babbage.txt:9" in notes[0].message and "longest" in notes[0].hint
    assert cli.main(["--project", str(root), "check"]) == cli.OK  # a note: --strict passes too
    assert "seeds/ada.txt:9: note: 'Sketch of the Analytical Engine' (2024) has another abstract in " in (
        capsys.readouterr().err
    )
    assert cli.main(["--project", str(root), "build", "--strict", "--quiet"]) == cli.OK
    page = (root / "site/papers/2024").glob("*/index.html")
    assert "three times its length" in next(page).read_text(encoding="utf-8")


def add_json(root: Path, incoming: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    """What `add --dry-run --json` says about adding `incoming`."""
    capsys.readouterr()
    assert cli.main(["--project", str(root), "add", str(incoming), "--dry-run", "--json"]) == cli.OK
    return json.loads(capsys.readouterr().out)


def test_add_says_which_abstract_is_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = project(tmp_path, {"ada-lovelace.txt": seed("Ada Lovelace", LONG)})
    shorter, longer, same = tmp_path / "shorter.txt", tmp_path / "longer.txt", tmp_path / "same.txt"
    shorter.write_text(seed("Charles Babbage", SHORT), encoding="utf-8")
    longer.write_text(seed("Charles Babbage", LONG + " And on its limits."), encoding="utf-8")
    same.write_text(seed("Charles Babbage", LONG.replace("engine", "en\u00adgine")), encoding="utf-8")

    kept = add_json(root, shorter, capsys)["different_abstracts"]
    assert kept == [
        {
            "title": TITLE,
            "year": 2024,
            "shown": "seeds/ada-lovelace.txt:9",
            "not_shown": [f"{shorter}:9"],
            "replaces": "",
        }
    ]
    replaced = add_json(root, longer, capsys)["different_abstracts"]
    assert [(c["shown"], c["not_shown"], c["replaces"]) for c in replaced] == [
        (f"{longer}:9", ["seeds/ada-lovelace.txt:9"], "seeds/ada-lovelace.txt:9")
    ]
    assert add_json(root, same, capsys)["different_abstracts"] == []

    assert cli.main(["--project", str(root), "add", str(longer), "--no-build"]) == cli.OK
    assert (
        f"different abstracts: {TITLE} (2024): shown: {longer}:9 (the longest), "
        "not: seeds/ada-lovelace.txt:9; it replaces the abstract shown so far (seeds/ada-lovelace.txt:9)"
    ) in capsys.readouterr().out
