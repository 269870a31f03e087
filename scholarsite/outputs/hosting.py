"""Files that hosting needs: `.nojekyll`, `robots.txt`, `sitemap.xml`, `CNAME`, and the assets."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape

from scholarsite.inputs.config import Config
from scholarsite.outputs import urls

SITEMAP_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)


def sitemap(base_url: str, pages: list[str]) -> bytes:
    """sitemaps.org XML listing every page (absolute URLs)."""
    entries = "".join(
        f"  <url><loc>{escape(urls.absolute(base_url, p))}</loc></url>\n" for p in sorted(pages)
    )
    return (SITEMAP_HEAD + entries + "</urlset>\n").encode("utf-8")


def robots(base_url: str | None) -> bytes:
    """Allow everything; point at the sitemap when there is one."""
    lines = ["User-agent: *", "Allow: /"]
    if base_url:
        lines.append(f"Sitemap: {urls.absolute(base_url, urls.SITEMAP)}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def hosting_files(config: Config, html_pages: list[str]) -> dict[str, bytes]:
    """`.nojekyll` (serve folders as they are), robots, and with base_url the sitemap; CNAME."""
    files = {".nojekyll": b"", "robots.txt": robots(config.base_url)}
    if config.base_url:
        files[urls.SITEMAP] = sitemap(config.base_url, [p for p in html_pages if p != urls.NOT_FOUND])
    if config.cname:
        files["CNAME"] = (config.cname + "\n").encode("ascii")
    return files


def asset_files(assets_dir: Path) -> dict[str, bytes]:
    """Every visible file under `assets/`, copied as it is to `site/assets/`."""
    if not assets_dir.is_dir():
        return {}
    return {
        f"assets/{path.relative_to(assets_dir).as_posix()}": path.read_bytes()
        for path in sorted(assets_dir.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(assets_dir).parts)
    }
