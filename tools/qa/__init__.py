"""Quality gate for a built scholarsite folder: independent validators and a short report.

Run `python -m tools.qa SITE_DIR` or call `run_all` / the individual `check_*` functions.
The external tools come from `bash .ci/install-qa.sh`.
"""

from .browser import check_accessibility, check_layout, open_browser
from .core import CheckResult, ToolMissingError, missing_tools
from .links import check_links
from .markup import check_fragments, check_html, check_jsonld, check_root_relative
from .pages import sample_pages
from .runner import format_report, run_all
from .server import serve
from .xmlfiles import check_feeds, check_sitemap

__all__ = [
    "CheckResult",
    "ToolMissingError",
    "check_accessibility",
    "check_feeds",
    "check_fragments",
    "check_html",
    "check_jsonld",
    "check_layout",
    "check_links",
    "check_root_relative",
    "check_sitemap",
    "format_report",
    "missing_tools",
    "open_browser",
    "run_all",
    "sample_pages",
    "serve",
]
