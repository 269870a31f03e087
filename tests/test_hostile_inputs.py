"""Nothing outside the project is read or published, and hostile input is a message."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from scholarsite import pipeline
from scholarsite.errors import BuildError

from .conftest import make_project

SECRET = "SCHOLARSITE_SECRET_VALUE_4711"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A secret file outside the project."""
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text(f"arXiv subjects\n\n{SECRET}\n", encoding="utf-8")
    return secret


def link(path: Path, target: Path | str) -> None:
    """A symlink at `path` (its folder made) to `target`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


LINKS: dict[str, Callable[[Path, Path], None]] = {
    "seed": lambda p, secret: link(p / "seeds/env.txt", secret),
    "seed to /proc/self/environ": lambda p, secret: link(p / "seeds/env.txt", "/proc/self/environ"),
    "content page": lambda p, secret: link(p / "content/leak.md", secret),
    "author page folder": lambda p, secret: (
        shutil.rmtree(p / "content/authors", ignore_errors=True),
        link(p / "content/authors", secret.parent),
        secret.with_name("ziheng-jiang.md").write_text(SECRET),
    ),
    "template": lambda p, secret: (
        (p / "templates/base.html").unlink(),
        link(p / "templates/base.html", secret),
    ),
    "asset": lambda p, secret: link(p / "assets/leak.css", secret),
    "asset folder": lambda p, secret: link(p / "assets/vendor", secret.parent),
    "seed through a symlinked seeds folder": lambda p, secret: (
        shutil.rmtree(p / "seeds"),
        link(p / "seeds", secret.parent),
    ),
}


@pytest.mark.parametrize("name", sorted(LINKS))
def test_links_to_outside_the_project_are_refused_unread(
    tmp_path: Path, outside: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path / "project")
    LINKS[name](project, outside)
    with pytest.raises(BuildError) as failure:
        pipeline.build(project, workers=1)
    messages = "\n".join(d.format() for d in failure.value.diagnostics)
    assert "outside the project" in messages or "seeds folder" in messages
    assert SECRET not in messages and SECRET not in capsys.readouterr().err
    assert not (project / "site").exists()
    checked = pipeline.check(project, workers=1).diagnostics
    assert sorted(checked) == sorted(failure.value.diagnostics)


def test_links_inside_the_project_are_followed(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    (project / "content/about.md").write_text("---\ntitle: About\n---\nHello from inside.\n")
    link(project / "content/about-us.md", project / "content/about.md")
    pipeline.build(project, workers=1)
    assert "Hello from inside." in (project / "site/about-us/index.html").read_text()


def test_a_pipe_in_seeds_is_refused_without_blocking(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    os.mkfifo(project / "seeds/pipe.txt")
    with pytest.raises(BuildError) as failure:
        pipeline.build(project, workers=1)
    assert any("not a regular file" in d.message for d in failure.value.diagnostics)


def test_a_broken_link_is_refused(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    link(project / "seeds/gone.txt", tmp_path / "nowhere.txt")
    with pytest.raises(BuildError, match="broken or looping symlink"):
        pipeline.build(project, workers=1)


BOMB = "a: &a ['lol','lol','lol','lol','lol','lol','lol','lol','lol']\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
)

HOSTILE_YAML = {
    "alias bomb": BOMB.replace("i: &i", "title: &i"),
    "custom tag": "title: !custom x\n",
    "python tag": "title: !!python/object/apply:os.system ['id']\n",
    "complex key": "? [a, b]\n: 1\n",
    "duplicate key": "title: A\ntitle: B\n",
    "wrong type": "title: [1, 2]\n",
    "not a mapping": "- a\n- b\n",
    "syntax": "title: 'unclosed\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_YAML))
def test_hostile_site_yaml_is_a_diagnostic_with_a_line(tmp_path: Path, name: str) -> None:
    project = make_project(tmp_path / "project", site_yaml=HOSTILE_YAML[name])
    with pytest.raises(BuildError) as failure:
        pipeline.build(project, workers=1)
    problems = [d for d in failure.value.diagnostics if d.path == "site.yaml" and d.severity.value == "error"]
    assert problems and all(d.line >= 1 for d in problems)
    assert all(len(d.format()) < 400 for d in failure.value.diagnostics)


@pytest.mark.parametrize("name", sorted(HOSTILE_YAML))
def test_hostile_front_matter_is_a_diagnostic_with_a_line(tmp_path: Path, name: str) -> None:
    project = make_project(tmp_path / "project")
    (project / "content/about.md").write_text(f"---\n{HOSTILE_YAML[name]}---\nBody\n", encoding="utf-8")
    with pytest.raises(BuildError) as failure:
        pipeline.build(project, workers=1)
    problems = [d for d in failure.value.diagnostics if d.path == "content/about.md"]
    assert problems and all(d.line >= 2 for d in problems)
    assert all(len(d.format()) < 400 for d in failure.value.diagnostics)
