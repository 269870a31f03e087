"""`scholarsite new DIR`: a ready project that builds at once, and nothing overwritten."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scholarsite import cli, pipeline

from .conftest import ROOT, adopt_example

MAINTAINER_TEXT = ("seeds/", "scholarsite add", "example", "Lovelace", "maintainer")


def site_text(site: Path) -> str:
    """Every page and data file of a built site, as one text."""
    files = [p for p in site.rglob("*") if p.is_file() and p.suffix in (".html", ".json", ".txt", ".xml")]
    return "\n".join(p.read_text(encoding="utf-8") for p in files if "pagefind" not in p.parts)


def test_new_project_builds_checks_clean_and_publishes_no_example(tmp_path: Path) -> None:
    target = tmp_path / "lab"
    assert cli.main(["new", str(target)]) == cli.OK
    names = {p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()}
    assert names == {
        "README.md",
        "site.yaml",
        ".gitignore",
        "seeds/example.txt",
        "content/index.md",
        ".github/workflows/pages.yml",
    }
    assert "/.scholarsite-cache/" in (target / ".gitignore").read_text()
    assert "scholarsite add" in (target / "README.md").read_text()  # the maintainer's instructions
    result = pipeline.build(target, strict=True, workers=1)
    assert not [d for d in result.diagnostics if d.severity.value != "note"]
    assert [d.path for d in result.diagnostics if "example seed" in d.message] == ["seeds/example.txt"]
    assert not (target / "site/authors/ada-lovelace").exists()
    text = site_text(target / "site")
    assert "Publication records of our group" in text
    assert not [words for words in MAINTAINER_TEXT if words in text]


def test_the_first_add_replaces_the_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "lab"
    cli.main(["new", str(target)])
    profile = tmp_path / "babbage.txt"
    profile.write_text(BABBAGE, encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["--project", str(target), "add", str(profile), "--quiet"]) == cli.OK
    out = capsys.readouterr().out
    assert "remove seeds/example.txt (the example seed)" in out and "new author: Charles Babbage" in out
    assert sorted(p.name for p in (target / "seeds").iterdir()) == ["charles-babbage.txt"]
    assert (target / "site/authors/charles-babbage/index.html").is_file()
    assert not (target / "site/authors/ada-lovelace").exists()
    assert "Lovelace" not in site_text(target / "site")


def test_an_edited_example_is_a_seed_and_stays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "lab"
    cli.main(["new", str(target)])
    example = target / "seeds/example.txt"
    example.write_bytes(example.read_bytes().replace(b"Ada Lovelace", b"Ada King"))
    profile = tmp_path / "babbage.txt"
    profile.write_text(BABBAGE, encoding="utf-8")
    assert cli.main(["--project", str(target), "add", str(profile), "--quiet"]) == cli.OK
    assert "the example seed" not in capsys.readouterr().out
    assert example.is_file() and (target / "site/authors/ada-king/index.html").is_file()


def test_new_refuses_a_folder_that_holds_anything(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "lab"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    assert cli.main(["new", str(target)]) == cli.FAILED
    assert "not an empty folder" in capsys.readouterr().err
    assert [p.name for p in target.iterdir()] == ["notes.txt"]


def test_base_url_from_the_command_line_or_the_environment(tmp_path: Path) -> None:
    target = tmp_path / "lab"
    cli.main(["new", str(target)])
    command = [sys.executable, str(ROOT / "build.py"), "--project", str(target), "--quiet"]
    env = {"PATH": "/usr/bin:/bin", "SCHOLARSITE_BASE_URL": "https://user.github.io/lab"}
    subprocess.run(command, check=True, env=env, capture_output=True)
    assert "https://user.github.io/lab/authors/" in (target / "site/sitemap.xml").read_text()
    subprocess.run([*command, "--base-url", "https://papers.example.org/"], check=True, capture_output=True)
    assert "https://papers.example.org/authors/" in (target / "site/sitemap.xml").read_text()


def test_unknown_commands_get_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main(["serv"])
    assert stop.value.code == 2
    assert "did you mean 'serve'?" in capsys.readouterr().err


def test_outside_a_project_the_message_names_project_and_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["--project", str(tmp_path), "build", "--quiet"]) == cli.FAILED
    err = capsys.readouterr().err
    assert "--project" in err and "scholarsite new" in err


BABBAGE = """arXiv subjects

Charles Babbage

Publications and source records attributed to Charles Babbage.

2 recordsLinked to original sources

arXiv2024

Sketch of the Analytical Engine: a translation with notes

A translation of the memoir on the engine, with notes three times its length on its
operations, its cards and its limits.

cs.ET↗

arXiv2019

On the economy of machinery and manufactures

Division of labour, applied to mental labour as to manual.

econ.GN↗
"""


def test_add_prints_what_changes_copies_and_builds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "lab"
    cli.main(["new", str(project)])
    adopt_example(project)
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (incoming / "babbage profile.txt").write_text(BABBAGE, encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["--project", str(project), "add", str(incoming), "--dry-run", "--json"]) == cli.OK
    changes = json.loads(capsys.readouterr().out)
    assert changes["added_files"] == ["seeds/charles-babbage.txt"]
    assert changes["new_authors"] == ["Charles Babbage"]
    assert changes["new_papers"] == ["On the economy of machinery and manufactures (2019)"]
    assert [(m["title"], m["with"]) for m in changes["merged_papers"]] == [
        ("Sketch of the Analytical Engine: a translation with notes", ["Ada Lovelace"])
    ]
    assert changes["new_coauthor_pairs"] == [["Ada Lovelace", "Charles Babbage"]]
    assert (changes["new_subjects"], changes["new_years"]) == (["econ.GN"], [2019])
    assert not (project / "seeds/charles-babbage.txt").exists()  # a dry run changes nothing
    assert (
        cli.main(["--project", str(project), "add", str(incoming / "babbage profile.txt"), "--quiet"])
        == cli.OK
    )
    out = capsys.readouterr().out
    assert "new co-authors: Ada Lovelace and Charles Babbage" in out and "written" in out
    assert (project / "site/authors/charles-babbage/index.html").is_file()
    assert cli.main(["--project", str(project), "add", str(incoming)]) == cli.FAILED  # the name is taken now
    assert "already" in capsys.readouterr().err


def test_add_refuses_a_broken_seed_and_copies_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "lab"
    cli.main(["new", str(project)])
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text(BABBAGE, encoding="utf-8")
    bad.write_text(BABBAGE.replace("arXiv2019", "arXiv2999").replace("Charles Babbage", "Mary Somerville"))
    assert cli.main(["--project", str(project), "add", str(good), str(bad), "--no-build"]) == cli.FAILED
    assert "impossible year" in capsys.readouterr().err
    assert sorted(p.name for p in (project / "seeds").iterdir()) == ["example.txt"]


def test_add_counts_a_declared_alias_as_the_same_author(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "lab"
    cli.main(["new", str(project)])
    adopt_example(project)
    (project / "content/authors").mkdir(parents=True)
    (project / "content/authors/ada-lovelace.md").write_text("---\naliases: [A. A. Lovelace]\n---\n")
    alias = tmp_path / "alias.txt"
    alias.write_text(BABBAGE.replace("Charles Babbage", "A. A. Lovelace"), encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["--project", str(project), "add", str(alias), "--dry-run", "--json"]) == cli.OK
    changes = json.loads(capsys.readouterr().out)
    assert changes["new_authors"] == [] and changes["new_coauthor_pairs"] == []
    assert changes["new_papers"] == ["On the economy of machinery and manufactures (2019)"]
