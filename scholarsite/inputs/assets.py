"""The files the site takes as they are: the theme's assets (overridable) and `static/`."""

from __future__ import annotations

from pathlib import Path

from scholarsite import theme
from scholarsite.errors import Diagnostic
from scholarsite.inputs.files import READ_HIDDEN, read_files, visible_files


def read_assets(assets_dir: Path) -> tuple[dict[str, bytes], list[Diagnostic]]:
    """The built-in theme's assets overridden file by file by the visible files of the
    project's `assets/`, by output path (`assets/style.css`); and the project files refused
    (links to outside the project, pipes)."""
    assets = {
        f"assets/{p.relative_to(theme.ASSETS).as_posix()}": p.read_bytes()
        for p in visible_files(theme.ASSETS)
    }
    own, problems = read_files(assets_dir.parent, assets_dir.name)
    assets.update({f"assets/{rel}": content for rel, content in own.items()})
    return dict(sorted(assets.items())), problems


STATIC = "static"  # the project's pass-through folder
WELL_KNOWN = READ_HIDDEN[1]  # the one hidden folder of static/ that is copied (security.txt, ...)


def read_static(root: Path) -> tuple[dict[str, bytes], list[Diagnostic]]:
    """The files of the project's `static/`, by site path (`static/keybase.txt` is
    `keybase.txt`): its visible files and those of `static/.well-known/`; and the files
    refused (links to outside the project, pipes)."""
    files, problems = read_files(root, STATIC)
    hidden, refused = read_files(root, f"{STATIC}/{WELL_KNOWN}")
    files.update({f"{WELL_KNOWN}/{rel}": content for rel, content in hidden.items()})
    return dict(sorted(files.items())), sorted(problems + refused)
