"""The preview's "Build warnings" banner in Chromium, at a phone's and a desktop's width: it
never covers the page (it follows everything else), its long lines wrap inside the screen,
and it can be dismissed until the warnings change."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarsite.preview import banner
from tools.qa.browser import open_browser

from .conftest import make_project, start_preview

pytestmark = pytest.mark.browser

WIDTHS = [(390, 844), (1280, 800)]
# Where the banner is and whether anything else of the page lies below its top.
MEASURE = """() => {
  const banner = document.getElementById('build-warnings');
  if (!banner) return null;
  const top = banner.getBoundingClientRect().top + scrollY;
  let lowest = 0;
  for (const element of document.body.querySelectorAll('*')) {
    if (banner.contains(element) || ['SCRIPT', 'LINK'].includes(element.tagName)) continue;
    const box = element.getBoundingClientRect();
    if (box.width && box.height) lowest = Math.max(lowest, box.bottom + scrollY);
  }
  const pre = banner.querySelector('pre');
  return {
    position: getComputedStyle(banner).position,
    top, lowest,
    pageWidth: document.documentElement.scrollWidth, viewport: innerWidth,
    bannerRight: banner.getBoundingClientRect().right,
    preOverflows: pre.scrollWidth > pre.clientWidth,
    preLines: pre.getBoundingClientRect().height / parseFloat(getComputedStyle(pre).lineHeight),
    button: !banner.querySelector('button').hidden,
  };
}"""


@pytest.fixture(scope="module")
def preview(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The preview of a project whose first record lost its subject line (a warning)."""
    project = make_project(tmp_path_factory.mktemp("banner") / "project")
    seed = sorted((project / "seeds").glob("*.txt"))[0]
    text = seed.read_text(encoding="utf-8")
    seed.write_text(text.replace("\n\ncs.DC↗\n", "\n", 1), encoding="utf-8")
    process, port = start_preview(project)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.mark.parametrize(("width", "height"), WIDTHS)
def test_the_banner_covers_nothing_wraps_and_can_be_dismissed(
    preview: str, width: int, height: int, tmp_path: Path
) -> None:
    with open_browser() as browser:
        page = browser.new_page()
        page.set_viewport_size({"width": width, "height": height})
        page.goto(preview, wait_until="load")
        page.wait_for_selector("#build-warnings button:not([hidden])")
        seen = page.evaluate(MEASURE)
        page.screenshot(path=str(tmp_path / f"banner-{width}.png"), full_page=True)
        assert seen["position"] == "static"  # in the flow: neither sticky nor fixed
        assert seen["top"] >= seen["lowest"] - 1  # below everything else on the page
        assert seen["pageWidth"] <= seen["viewport"] and seen["bannerRight"] <= seen["viewport"]
        assert not seen["preOverflows"]
        if width < 500:
            assert seen["preLines"] > 1.5  # the warning's long line wraps on a phone
        page.click("#build-warnings button")
        assert page.evaluate(MEASURE) is None
        page.reload(wait_until="load")
        page.wait_for_load_state("networkidle")
        assert page.evaluate(MEASURE) is None  # stays dismissed while the warnings are the same
        page.evaluate("() => sessionStorage.clear()")
        page.reload(wait_until="load")
        page.wait_for_selector("#build-warnings button:not([hidden])")


def test_the_banner_names_its_warnings_and_changes_digest_with_them() -> None:
    one = banner.banner(["seeds/a.txt:3: warning: <b>x</b>"])
    two = banner.banner(["seeds/a.txt:3: warning: other"])
    assert b"&lt;b&gt;x&lt;/b&gt;" in one and b"<strong>Build warnings (1)</strong>" in one
    digest = lambda markup: markup.split(b'data-digest="')[1][:16]  # noqa: E731
    assert digest(one) != digest(two)
    page = banner.with_banner(b"<html><body><main>x</main></body></html>", ["w"])
    assert page.index(b"</main>") < page.index(b'id="build-warnings"') < page.index(b"</body>")
