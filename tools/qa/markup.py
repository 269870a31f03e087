"""Checks over the files themselves: HTML validity, root-relative URLs, JSON-LD."""

from __future__ import annotations

import contextlib
import json
import subprocess
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from .core import VNU_JAR, CheckResult, executable, node_tool
from .pages import html_files, normalize_base_path, page_file, scan_page

VNU_TIMEOUT = 600
# A big thread stack (vnu's schema recursion needs >= 512k) and the quick JIT tier only: half
# the CPU time for a one-shot run, which leaves the second core to the browser checks.
JAVA_FLAGS = ["-Xss4m", "-XX:TieredStopAtLevel=1"]


# vnu evaluates a page's Content-Security-Policy meta against files with no origin ('self'
# matches none of them) and counts JSON-LD data blocks as scripts, so every page "violates" it;
# the policy is checked where it applies, in Chromium (tests/test_safety_content.py).
VNU_CSP_WARNING = "violates Content Security Policy"


def _vnu_problem(message: dict, site: Path) -> str | None:
    """Format a vnu message that counts as a problem (errors and warnings), else None."""
    kind = message.get("type")
    if kind == "info" and message.get("subType") != "warning":
        return None
    if VNU_CSP_WARNING in message.get("message", ""):
        return None
    where = unquote(urlsplit(message.get("url", "")).path)
    with contextlib.suppress(ValueError):  # outside the site: keep the URL path
        where = Path(where).resolve().relative_to(site.resolve()).as_posix()
    label = "warning" if kind == "info" else kind
    return f"{where}:{message.get('lastLine', '?')}: {label}: {message.get('message', '')}"


def check_html(site_dir: Path) -> CheckResult:
    """Nu HTML Checker over the whole folder in one run; errors and warnings both fail."""
    command = [
        executable("java"),
        *JAVA_FLAGS,
        "-jar",
        str(node_tool(VNU_JAR)),
        "--format",
        "json",
        "--stdout",
        "--skip-non-html",
        str(site_dir),
    ]
    proc = subprocess.run(command, check=False, capture_output=True, text=True, timeout=VNU_TIMEOUT)
    result = CheckResult("html", checked=len(html_files(site_dir)))
    try:
        messages = json.loads(proc.stdout)["messages"]
    except (json.JSONDecodeError, KeyError):
        result.problems.append(f"vnu failed (exit {proc.returncode}): {proc.stderr.strip()[:300]}")
        return result
    found = (_vnu_problem(m, site_dir) for m in messages)
    result.problems = [p for p in found if p is not None]
    return result


def _rooted(value: str, attribute: str) -> list[str]:
    """URLs in an attribute value that start with a single '/' (srcset holds several)."""
    urls = [c.split()[0] for c in value.split(",") if c.strip()] if attribute == "srcset" else [value.strip()]
    return [u for u in urls if u.startswith("/") and not u.startswith("//")]


def check_root_relative(site_dir: Path) -> CheckResult:
    """No internal href/src may start with '/': the site must work under any sub-path."""
    result = CheckResult("paths")
    for path in html_files(site_dir):
        rel = path.relative_to(site_dir).as_posix()
        for tag, attribute, value in scan_page(path).urls:
            result.checked += 1
            result.problems += [f'{rel}: <{tag} {attribute}="{url}">' for url in _rooted(value, attribute)]
    return result


@cache
def _ids(path: Path) -> frozenset[str]:
    """Fragment targets (ids, <a name>) of one page, parsed once."""
    return frozenset(scan_page(path).ids)


def _fragment_target(site_dir: Path, rel: str, href: str, base: str) -> tuple[Path, str] | None:
    """The local HTML file and fragment an href points to, or None (external, no fragment)."""
    origin = "http://site.invalid"
    url = urlsplit(urljoin(f"{origin}{base}{rel}", href.strip()))
    fragment = unquote(url.fragment)
    if not fragment or fragment == "top" or fragment.startswith(":~:"):
        return None
    if url.netloc != "site.invalid" or not url.path.startswith(base):
        return None
    target = site_dir / page_file(unquote(url.path), base)
    if target.is_dir():
        target = target / "index.html"
    return (target, fragment) if target.suffix == ".html" and target.is_file() else None


def check_fragments(site_dir: Path, base_path: str = "/scholarsite/") -> CheckResult:
    """Every internal link's #fragment names an id on the target page.

    linkinator only validates fragments of pages it has not fetched yet, so this is checked here.
    """
    base = normalize_base_path(base_path)
    result = CheckResult("anchors")
    _ids.cache_clear()
    for path in html_files(site_dir):
        rel = path.relative_to(site_dir).as_posix()
        for tag, attribute, value in scan_page(path).urls:
            target = _fragment_target(site_dir, rel, value, base) if attribute == "href" else None
            if target is None:
                continue
            result.checked += 1
            if target[1] not in _ids(target[0]):
                result.problems.append(
                    f'{rel}: <{tag} href="{value}">: no id "{target[1]}" '
                    f"in {target[0].relative_to(site_dir).as_posix()}"
                )
    return result


def _reject_constant(name: str) -> float:
    """json.loads hook: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not valid JSON")


def check_jsonld(site_dir: Path) -> CheckResult:
    """Every <script type="application/ld+json"> block parses as strict JSON."""
    result = CheckResult("jsonld")
    for path in html_files(site_dir):
        rel = path.relative_to(site_dir).as_posix()
        for number, block in enumerate(scan_page(path).jsonld, start=1):
            result.checked += 1
            try:
                json.loads(block, parse_constant=_reject_constant)
            except ValueError as exc:
                result.problems.append(f"{rel}: JSON-LD block {number}: {exc}")
    return result
