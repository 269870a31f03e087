"""A throwaway static server that exposes a site only under its base path."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from .pages import normalize_base_path


class _Server(ThreadingHTTPServer):
    """Threaded server with a backlog large enough for a concurrent link crawler."""

    request_queue_size = 128

    def handle_error(self, request: object, client_address: object) -> None:
        """Ignore clients that hang up early."""


class _SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site under `base_path` only; everything above it is 404."""

    base_path = "/"

    def translate_path(self, path: str) -> str:
        url_path = urlsplit(path).path
        if url_path == self.base_path.rstrip("/"):
            url_path = self.base_path
        if not url_path.startswith(self.base_path):
            return ""  # nothing exists outside the base path: send_head answers 404
        return super().translate_path("/" + url_path.removeprefix(self.base_path))

    def log_message(self, format: str, *args: object) -> None:
        """Keep the crawl quiet."""


@contextmanager
def serve(site: Path, base_path: str = "/scholarsite/") -> Iterator[str]:
    """Serve SITE on a free 127.0.0.1 port under BASE_PATH; yield the base URL."""
    base = normalize_base_path(base_path)
    handler = type("Handler", (_SubPathHandler,), {"base_path": base})
    server = _Server(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{base}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
