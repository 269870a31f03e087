"""The files the site takes as they are: the theme's assets (overridable) and `static/`."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from scholarsite import theme
from scholarsite.errors import Diagnostic, error
from scholarsite.inputs.config import Config
from scholarsite.inputs.files import READ_HIDDEN, Hashed, hashed_input, read_files, visible_files


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


def read_static(
    root: Path, limit_mb: int = Config.static_file_mb
) -> tuple[dict[str, Hashed], list[Diagnostic]]:
    """The files of the project's `static/`, by site path (`static/keybase.txt` is
    `keybase.txt`), hashed in chunks (a video is never held whole; it is copied the same way):
    its visible files and those of `static/.well-known/`; and the files refused (links to
    outside the project, pipes, files over `limit_mb` MiB, left unread)."""
    too_large = partial(over_limit, limit_mb)
    files, problems = read_files(root, STATIC, too_large, hashed_input)
    hidden, refused = read_files(root, f"{STATIC}/{WELL_KNOWN}", too_large, hashed_input)
    files.update({f"{WELL_KNOWN}/{rel}": content for rel, content in hidden.items()})
    return dict(sorted(files.items())), sorted(problems + refused)


def over_limit(limit_mb: int, size: int, shown: str) -> Diagnostic | None:
    """Why a file of static/ of `size` bytes is not copied: over `static_file_mb`."""
    if size <= limit_mb * 2**20:
        return None
    return error(
        shown,
        0,
        f"{size / 2**20:,.0f} MiB: over the {limit_mb:,} MiB a file of static/ may have; it was not read",
        "host large files elsewhere and link to them, or raise static_file_mb in site.yaml",
    )
