"""A command line that explains itself: --version, each command's help, the order of the
story, where the site is after a build, and repeated notes said once with their count."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from benchmarks.realworld import make_realworld
from scholarsite import __version__, arguments
from scholarsite.errors import note, summarised, warning
from scholarsite.inputs.config import Config, parse_config

from .conftest import ROOT, make_project

STARTER_SITE_YAML = ROOT / "scholarsite/commands/starter/site.yaml"


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """`python build.py ARGS` as a user runs it."""
    return subprocess.run(
        [sys.executable, str(ROOT / "build.py"), *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"scholarsite {__version__}"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", __version__)


@pytest.mark.parametrize("command", arguments.COMMANDS)
def test_every_command_says_what_it_does_with_an_example(command: str) -> None:
    done = run(command, "--help")
    assert done.returncode == 0
    usage, description = done.stdout.split("\n\n")[:2]
    assert usage.startswith(f"usage: scholarsite {command}")
    line = arguments.ABOUT[command].line
    assert description == line[0].upper() + line[1:] + "."
    examples = done.stdout.split("examples:\n", 1)[1]
    assert f"  scholarsite {command}" in examples


def test_commands_listed_in_the_order_of_the_story() -> None:
    done = run("--help")
    listed = re.findall(r"^    ([a-z-]+) ", done.stdout, re.M)
    assert listed == ["new", "add", "import", "link-sources", "check", "build", "serve", "deploy"]
    assert "scholarsite new lab" in done.stdout


def test_many_notes_of_one_kind_are_said_once_with_their_count() -> None:
    notes = [
        note(f"seeds/{i:03}.txt", 7, f"TeX: unknown macro '\\m{i}' kept as TeX source") for i in range(68)
    ]
    other = warning("seeds/000.txt", 3, "a warning is always shown")
    few = [note("site.yaml", 0, "no base_url: Atom feeds, sitemap and canonical links are not written")]
    lines = summarised([*notes, other, *few])
    assert lines == [
        "seeds/000.txt:3: warning: a warning is always shown",
        "site.yaml: note: no base_url: Atom feeds, sitemap and canonical links are not written",
        "68 notes: unknown TeX macros shown as source; scholarsite check --verbose lists them",
    ]
    assert len(summarised([*notes, other, *few], verbose=True)) == 70
    three = notes[:3]
    assert summarised(three) == [d.format() for d in three]  # a few are listed as they are


def test_a_build_ends_with_where_the_site_is_and_how_to_view_it(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    done = run("build", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith(tuple(f"{n} written" for n in range(10, 1000)))
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("the site is in site/: `scholarsite serve` shows it at http://127.0.0.1:8000/")
    assert "--portable" in last
    portable = run("build", "--portable", "--site", str(tmp_path / "disk"), cwd=project)
    assert portable.returncode == 0, portable.stderr
    assert "index.html in a browser (it works from disk)" in portable.stderr.strip().splitlines()[-1]
    elsewhere = run("--project", str(project), "build", cwd=tmp_path)
    assert "`scholarsite serve --project p` shows it" in elsewhere.stderr
    quiet = run("build", "--quiet", cwd=project)
    assert "the site is in" not in quiet.stdout + quiet.stderr


def test_an_edit_on_a_collection_with_unknown_macros_prints_few_lines(tmp_path: Path) -> None:
    """The issue's figure is 1,800 papers (at most 15 lines; 4 measured); a smaller collection
    of the same kind keeps the test quick: its notes are many and of one kind all the same."""
    project = tmp_path / "rw"
    make_realworld(40, 240, seed=1).write_seeds(project / "seeds")
    first = run("build", cwd=project)
    assert first.returncode == 0, first.stderr
    seed = sorted((project / "seeds").glob("*.txt"))[0]
    text = seed.read_text(encoding="utf-8")
    abstract = re.compile(r"(\narXiv\d{4}\n\n[^\n]+\n\n)")  # a record's source line and title
    seed.write_text(abstract.sub(r"\1Edited. ", text, count=1), encoding="utf-8")
    edited = run("build", cwd=project)
    assert edited.returncode == 0, edited.stderr
    lines = (edited.stdout + edited.stderr).strip().splitlines()
    assert len(lines) <= 15, lines
    assert any(re.fullmatch(r"\d+ notes: unknown TeX macros shown as source; .*", line) for line in lines)
    verbose = run("check", "--verbose", cwd=project)
    listed = [line for line in verbose.stderr.splitlines() if "TeX: unknown macro" in line]
    count = int(re.search(r"(\d+) notes: unknown TeX", edited.stderr)[1])
    assert len(listed) == count > 3


def test_the_starter_site_yaml_names_every_key() -> None:
    text = STARTER_SITE_YAML.read_text(encoding="utf-8")
    named = set(re.findall(r"^#? ?([a-z_]+):", text, re.M))
    assert {f.name for f in fields(Config)} <= named
    # every key, uncommented, is a valid setting with the value shown
    uncommented = re.sub(r"^# ([a-z_]+: \S+).*$", r"\1", text, flags=re.M)
    config = parse_config(uncommented, "site.yaml")
    assert config.papers_per_page == Config.papers_per_page and config.portable is False
