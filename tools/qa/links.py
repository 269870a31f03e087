"""Link check: linkinator crawls the site served under its base path only."""

from __future__ import annotations

import json
import subprocess
import tempfile
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from urllib.parse import urlsplit

from .core import LINKINATOR, CheckResult, executable, node_tool
from .server import serve

SKIP_EXTERNAL = r"^https?://(?!127\.0\.0\.1)"
LINKINATOR_TIMEOUT = 600
# On a loaded 2-core machine one failed connection must not make a link broken. --concurrency
# bounds only the start page in linkinator 7.6.1 (the links found on a page are all requested at
# once; fixed upstream by linkinator PR #847), so the server takes the burst (see server.py), and
# a request without a response (or a 5xx) is retried, five times with pauses of 2 to 16 s.
CRAWL_FLAGS = [
    "--concurrency",
    "16",
    "--retry-errors",
    "--retry-errors-count",
    "4",
    "--retry-errors-jitter",
    "1000",
]
# A retry waits on linkinator's queue timer, which can fire a few ms early; the retry is then put
# back and only an unref'd timer is left, so Node exits (code 13) without a report. A timer that
# keeps the event loop alive closes that gap; linkinator still exits by itself after its report.
KEEP_NODE_ALIVE = "data:text/javascript,setInterval(() => {}, 2 ** 30)"


def site_url(site_dir: Path, base_path: str, base_url: str | None) -> AbstractContextManager[str]:
    """The given base URL, or a fresh sub-path server for the duration."""
    return nullcontext(base_url) if base_url else serve(site_dir, base_path)


def _describe(link: dict, origin: str) -> str:
    """One broken link, with served URLs shortened to their paths."""
    target = link.get("url", "?").removeprefix(origin)
    parent = link.get("parent", "(start)").removeprefix(origin)
    status = link.get("status")
    reason = "missing fragment" if status == 200 and "#" in target else f"HTTP {status}"
    return f"{target} ({reason}) linked from {parent}"


def check_links(
    site_dir: Path, base_path: str = "/scholarsite/", *, base_url: str | None = None
) -> CheckResult:
    """Crawl from the base URL with linkinator; broken links, fragments and assets fail."""
    with site_url(site_dir, base_path, base_url) as url:
        command = [
            executable("node"),
            "--import",
            KEEP_NODE_ALIVE,
            str(node_tool(LINKINATOR)),
            url,
            "--recurse",
            "--check-fragments",
            "--check-css",
            "--format",
            "json",
            "--skip",
            SKIP_EXTERNAL,
            *CRAWL_FLAGS,
        ]
        # linkinator exits 100 ms after printing its report; into a pipe that is not drained
        # fast enough the report is cut short (and the exit code is still 0). Node writes to
        # a file synchronously, so the report goes to one.
        with tempfile.TemporaryFile("w+", encoding="utf-8") as report:
            proc = subprocess.run(
                command,
                check=False,
                stdout=report,
                stderr=subprocess.PIPE,
                text=True,
                timeout=LINKINATOR_TIMEOUT,
            )
            report.seek(0)
            output = report.read()
    result = CheckResult("links")
    try:
        links = json.loads(output)["links"]
    except (json.JSONDecodeError, KeyError):
        result.problems.append(f"linkinator failed (exit {proc.returncode}): {proc.stderr.strip()[:300]}")
        return result
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    result.checked = sum(1 for link in links if link.get("state") != "SKIPPED")
    broken = {_describe(link, origin) for link in links if link.get("state") == "BROKEN"}
    result.problems = sorted(broken)
    return result
