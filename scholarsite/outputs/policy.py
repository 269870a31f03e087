"""The Content-Security-Policy every page carries in a `<meta http-equiv>`.

Scripts and stylesheets come from the site's own files only; an inline script or `<style>` runs
only when the template names its text (the 404 page's, hashed here at build time), so markup
that slipped into a page cannot run. Pagefind's WebAssembly needs `'wasm-unsafe-eval'`, which
allows compiling WebAssembly and nothing else (no `eval`). Images may come from any https
address (content pages link them); frames, plugins and forms to other sites are refused.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable
from urllib.parse import urlsplit

from markupsafe import Markup, escape


def source_hash(text: str) -> str:
    """The CSP source expression allowing an inline script or style whose text is `text`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(
    scripts: Iterable[str] = (), styles: Iterable[str] = (), base_url: str | None = None
) -> Markup:
    """The policy for a page with these inline scripts and styles; a `<base href>` may point at
    the page's own origin or at `base_url`'s (given only for a page with a `<base>`). A style
    source the same as `default-src` is left to it."""
    script_hashes = [source_hash(str(text)) for text in scripts]
    style_hashes = [source_hash(str(text)) for text in styles]
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'wasm-unsafe-eval'", *script_hashes],
        **({"style-src": ["'self'", *style_hashes]} if style_hashes else {}),  # else default-src's
        "img-src": ["'self'", "https:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'", *([origin(base_url)] if base_url else [])],
        "form-action": ["'self'"],
    }
    policy = "; ".join(f"{name} {' '.join(sources)}" for name, sources in directives.items())
    return Markup(str(escape(policy)).replace("&#39;", "'"))  # safe in a double-quoted attribute


def origin(url: str) -> str:
    """`https://example.org` from `https://example.org/lab/` (no path, so no `;` can end the
    directive)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
