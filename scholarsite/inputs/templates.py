"""The project's templates, read with the rest of the project: every file of `templates/`,
once, when the build reads its inputs. Pages are keyed and rendered from these texts, never
from the folder, so a template saved while a build runs changes the next build, not half of
this one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scholarsite.errors import BuildError, Diagnostic
from scholarsite.inputs.files import read_input, visible_files

FOLDER = "templates"


@dataclass(frozen=True)
class TemplateFile:
    """One file of `templates/`: its bytes, or why it may not be read (a pipe, a link out of
    the project: refused only when a page uses it, as Jinja asks for templates by name)."""

    path: Path
    data: bytes = b""
    refused: Diagnostic | None = None


def read_templates(root: Path) -> dict[str, TemplateFile]:
    """Every visible file of the project's `templates/` by template name (`partials/x.html`);
    none when there is no such folder."""
    folder = root / FOLDER
    found: dict[str, TemplateFile] = {}
    for path in visible_files(folder) if folder.is_dir() else ():
        name = path.relative_to(folder).as_posix()
        try:
            found[name] = TemplateFile(path, read_input(path, root, f"{FOLDER}/{name}"))
        except BuildError as exc:
            found[name] = TemplateFile(path, refused=exc.diagnostics[0])
    return found
