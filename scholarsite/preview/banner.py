"""The preview's "Build warnings" banner: the last build's warnings at the foot of every page.

It sits in the page's flow after everything else (never over the content), wraps long lines
on a phone, and can be dismissed: its button (a script, so without JavaScript the banner
simply stays) hides it, and it stays hidden across reloads until the warnings change. Its
style and script are files served by the preview, since the pages' Content-Security-Policy
refuses inline styles and scripts; their paths are outside any base path.
"""

from __future__ import annotations

import hashlib
import html

STYLESHEET = "/.scholarsite-preview.css"
SCRIPT = "/.scholarsite-preview.js"
CSS = b"""#build-warnings{box-sizing:border-box;max-width:100%;margin:2rem 0 0;padding:.75rem 1rem;
background:#fff8e1;color:#222;border-top:3px solid #b26a00;font:15px/1.4 system-ui,sans-serif}
#build-warnings .build-warnings-head{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;
justify-content:space-between}
#build-warnings ul{margin:.5rem 0 0;padding-left:1.25rem;max-height:40vh;overflow:auto}
#build-warnings pre{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:13px}
#build-warnings button{font:inherit;padding:.25rem .75rem;color:#222;background:#fff;
border:1px solid #b26a00;border-radius:4px;cursor:pointer}
"""
JS = b"""(function () {
  var banner = document.getElementById('build-warnings');
  if (!banner) return;
  var key = 'scholarsite-warnings-dismissed';
  var digest = banner.getAttribute('data-digest');
  try { if (sessionStorage.getItem(key) === digest) { banner.remove(); return; } } catch (e) {}
  var button = banner.querySelector('button');
  button.hidden = false;
  button.addEventListener('click', function () {
    try { sessionStorage.setItem(key, digest); } catch (e) {}
    banner.remove();
  });
})();
"""
ASSETS = {STYLESHEET: (CSS, "text/css"), SCRIPT: (JS, "text/javascript")}


def banner(warnings: list[str]) -> bytes:
    """The banner's markup for these warnings."""
    digest = hashlib.sha256("\n".join(warnings).encode()).hexdigest()[:16]
    items = "".join(f"<li><pre>{html.escape(w)}</pre></li>" for w in warnings)
    return (
        f'<link rel="stylesheet" href="{STYLESHEET}">'
        f'<aside id="build-warnings" aria-label="Build warnings" data-digest="{digest}">'
        f'<div class="build-warnings-head"><strong>Build warnings ({len(warnings)})</strong>'
        '<button type="button" hidden>Dismiss</button></div>'
        f'<ul>{items}</ul></aside><script src="{SCRIPT}" defer></script>'
    ).encode()


def with_banner(page: bytes, warnings: list[str]) -> bytes:
    """A page with the last build's warnings shown at its foot (preview only)."""
    head, found, tail = page.rpartition(b"</body>")
    return head + banner(warnings) + found + tail if found else page + banner(warnings)
