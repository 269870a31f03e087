"""Browser checks with Playwright and Debian Chromium: axe-core accessibility and layout."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from .core import AXE_JS, CheckResult, ToolMissingError, chromium, node_tool
from .links import site_url
from .pages import page_url, resolve_pages

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_RUN = "tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})"
VIEWPORTS = ((390, 844), (1280, 800))
NARROW = 390
LAYOUT_JS = (Path(__file__).parent / "layout.js").read_text(encoding="utf-8")
DEFAULT_SCREENSHOTS = Path("qa-artifacts/screenshots")


@contextmanager
def open_browser(*flags: str) -> Iterator[BrowserContext]:
    """One headless Chromium with a fresh profile (and extra command-line `flags`); close it on exit."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise ToolMissingError("python package playwright") from None
    executable = chromium()
    with sync_playwright() as pw, tempfile.TemporaryDirectory(prefix="qa-chromium-") as profile:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=str(executable), headless=True, args=[*CHROMIUM_FLAGS, *flags]
        )
        try:
            yield context
        finally:
            context.close()


def _browser(given: BrowserContext | None) -> AbstractContextManager[BrowserContext]:
    """The given browser context, or a fresh one for the duration."""
    return nullcontext(given) if given is not None else open_browser()


def _load(page: Page, url: str) -> str | None:
    """Open URL and wait for fonts; return a problem if it did not load."""
    response = page.goto(url, wait_until="load")
    if response is None or not response.ok:
        return f"cannot load ({response.status if response else 'no response'})"
    page.evaluate("() => document.fonts.ready.then(() => true)")
    return None


def _axe_problems(page: Page) -> list[str]:
    """Run axe-core (preloaded by an init script) on the loaded page; one line per violated rule."""
    violations = page.evaluate(AXE_RUN, AXE_TAGS)["violations"]
    return [
        f"{v['id']}: {v['help']} ({len(v['nodes'])} nodes, e.g. {' '.join(v['nodes'][0]['target'])})"
        for v in violations
    ]


def check_accessibility(
    site_dir: Path,
    pages: Iterable[str] | None = None,
    base_path: str = "/scholarsite/",
    *,
    base_url: str | None = None,
    browser: BrowserContext | None = None,
) -> CheckResult:
    """axe-core (WCAG 2.0/2.1 A and AA) on each sampled page, in light and dark colour schemes."""
    axe_js = node_tool(AXE_JS)
    rels = resolve_pages(site_dir, pages, base_path)
    result = CheckResult("a11y", checked=len(rels))
    with site_url(site_dir, base_path, base_url) as url, _browser(browser) as context:
        page = context.new_page()
        page.add_init_script(path=str(axe_js))  # much faster than injecting after each load
        for rel in rels:
            for scheme in ("light", "dark"):
                page.emulate_media(color_scheme=scheme)
                failure = _load(page, page_url(url, rel))
                found = [failure] if failure else _axe_problems(page)
                result.problems += [f"{rel} [{scheme}] {p}" for p in found]
        page.close()
    return result


def _layout_problems(page: Page, width: int) -> list[str]:
    """Overlapping text at any width; horizontal overflow at the narrow width."""
    probe = page.evaluate(LAYOUT_JS)
    problems = [f"text overlaps: {a} × {b}" for a, b in probe["overlaps"]]
    if width == NARROW and probe["scrollWidth"] > probe["clientWidth"]:
        problems.append(
            f"horizontal overflow: scrollWidth {probe['scrollWidth']} > "
            f"clientWidth {probe['clientWidth']} (widest: {', '.join(probe['wide'])})"
        )
    return problems


def screenshot_name(rel: str, width: int) -> str:
    """Screenshot file name: 'publications/index.html' at 390 -> 'publications--index-390.png'."""
    return f"{rel.removesuffix('.html').replace('/', '--')}-{width}.png"


def check_layout(
    site_dir: Path,
    pages: Iterable[str] | None = None,
    base_path: str = "/scholarsite/",
    *,
    screenshots: Path = DEFAULT_SCREENSHOTS,
    base_url: str | None = None,
    browser: BrowserContext | None = None,
) -> CheckResult:
    """Full-page screenshots at 390 and 1280 px; fail on overflow at 390 px or overlapping text."""
    rels = resolve_pages(site_dir, pages, base_path)
    screenshots.mkdir(parents=True, exist_ok=True)
    result = CheckResult("layout", checked=len(rels))
    with site_url(site_dir, base_path, base_url) as url, _browser(browser) as context:
        page = context.new_page()
        page.emulate_media(color_scheme="light")
        for rel in rels:
            for width, height in VIEWPORTS:
                page.set_viewport_size({"width": width, "height": height})
                failure = _load(page, page_url(url, rel))
                if failure is None:
                    page.screenshot(path=str(screenshots / screenshot_name(rel, width)), full_page=True)
                found = [failure] if failure else _layout_problems(page, width)
                result.problems += [f"{rel} @{width}px {p}" for p in found]
        page.close()
    return result
