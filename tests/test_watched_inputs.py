"""The preview's inputs looked at where its watcher saw changes (`inputs.watched`): after any
change, told the paths that changed, the look gives what a look at every file gives."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from scholarsite.inputs.freshness import input_files
from scholarsite.inputs.state import BuildState
from scholarsite.inputs.watched import WatchedInputs

from .conftest import make_project

Change = Callable[[Path, random.Random], list[Path]]  # makes a change, gives the paths touched


def seeds(project: Path) -> list[Path]:
    return sorted((project / "seeds").glob("*.txt"))


def edit_seed(project: Path, rng: random.Random) -> list[Path]:
    seed = rng.choice(seeds(project))
    seed.write_text(seed.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    return [seed]


def add_seed(project: Path, rng: random.Random) -> list[Path]:
    seed = project / "seeds" / f"added-{rng.randrange(10**6)}.txt"
    seed.write_text(seeds(project)[0].read_text(encoding="utf-8"), encoding="utf-8")
    return [seed]


def remove_seed(project: Path, rng: random.Random) -> list[Path]:
    if len(seeds(project)) < 2:
        return add_seed(project, rng)
    seed = rng.choice(seeds(project))
    seed.unlink()
    return [seed]


def rename_seed(project: Path, rng: random.Random) -> list[Path]:
    seed = rng.choice(seeds(project))
    target = seed.with_name(f"renamed-{rng.randrange(10**6)}.txt")
    seed.rename(target)
    return [seed, target]


def add_folder(project: Path, rng: random.Random) -> list[Path]:
    folder = project / "assets" / f"folder-{rng.randrange(10**6)}"
    (folder / "inner").mkdir(parents=True)
    (folder / "inner" / "a.txt").write_text("a", encoding="utf-8")
    return [folder]  # as a watcher reports a folder moved in: the folder alone


def remove_folder(project: Path, rng: random.Random) -> list[Path]:
    folders = sorted((project / "assets").glob("folder-*"))
    if not folders:
        return add_folder(project, rng)
    shutil.rmtree(folders[0])
    return [folders[0]]  # as a watcher may report a folder deleted: the folder alone


def static_linked(project: Path, rng: random.Random) -> list[Path]:
    """`static` made a link to a folder of the project (a look walks the folder an input links
    to), then a file in it edited."""
    static = project / "static"
    if not static.is_symlink():
        static.mkdir(exist_ok=True)
        shutil.move(static, project / "shared-static")
        static.symlink_to(project / "shared-static", target_is_directory=True)
    edited = static / "edited.txt"
    edited.write_text(str(rng.random()), encoding="utf-8")
    return [edited]


def link_folder(project: Path, rng: random.Random) -> list[Path]:
    target = project / "static" / "real"
    target.mkdir(parents=True, exist_ok=True)
    (target / "file.txt").write_text(str(rng.random()), encoding="utf-8")
    link = project / "static" / f"linked-{rng.randrange(10**6)}"
    link.symlink_to(target, target_is_directory=True)
    return [link, link / "file.txt", target / "file.txt"]


def hidden_and_outside(project: Path, rng: random.Random) -> list[Path]:
    hidden = project / "seeds" / ".notes.txt"
    hidden.write_text("not read", encoding="utf-8")
    return [hidden, project / "site" / "index.html", project.parent / "elsewhere.txt"]


def edit_settings(project: Path, rng: random.Random) -> list[Path]:
    settings = project / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + f"\n# {rng.random()}\n", encoding="utf-8")
    return [settings]


CHANGES: list[Change] = [
    edit_seed,
    add_seed,
    remove_seed,
    rename_seed,
    add_folder,
    remove_folder,
    link_folder,
    static_linked,
    hidden_and_outside,
    edit_settings,
]


@pytest.mark.parametrize("told", [True, False], ids=["told", "missed"])
def test_a_look_told_what_changed_is_a_look_at_every_file(tmp_path: Path, told: bool) -> None:
    """After each of 40 random changes (edits, adds, removals, renames, folders moved in,
    symlinked folders, hidden files and paths outside the inputs), the watched look given the
    changed paths equals a look at every file; when the watcher missed the change (no paths),
    `verify` names exactly the files that differ and the next look is right."""
    project = make_project(tmp_path / "project")
    state = BuildState(tmp_path / "state.sqlite")
    watched = WatchedInputs(project)
    watched.saw(None)
    watched.look(state)
    rng = random.Random(1206)
    for step in range(40):
        before = input_files(project)
        change = rng.choice(CHANGES)
        paths = change(project, rng)
        watched.saw([os.fspath(path) for path in paths] if told else [])
        now = watched.look(state)
        everything = input_files(project)
        if told:
            assert now == everything, f"step {step}: {change.__name__}"
            continue
        differing = {
            name
            for name in before.counted.keys() | everything.counted.keys()
            if before.counted.get(name) != everything.counted.get(name)
        }
        if watched.followed:
            assert watched.verify(state) == differing, f"step {step}: {change.__name__}"
        watched.saw([])
        assert watched.look(state) == everything, f"step {step}: {change.__name__}"
