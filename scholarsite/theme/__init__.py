"""The built-in theme: the default templates and assets every project builds with.

A project's own `templates/` and `assets/` override it file by file (as MkDocs' `custom_dir`
and Hugo's theme lookup do), so a project with only `seeds/` builds, and a project that
overrides one template still takes every other improvement of the built-in look. The
repository's top-level `templates/` and `assets/` are the theme's source: `theme/templates`
and `theme/assets` link to them, and a wheel carries copies.
"""

from __future__ import annotations

from pathlib import Path

THEME = Path(__file__).parent
TEMPLATES = THEME / "templates"
ASSETS = THEME / "assets"
