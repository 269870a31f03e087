"""A throwaway static server that exposes a site only under its base path."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path
from socketserver import BaseRequestHandler
from urllib.parse import urlsplit

from .pages import normalize_base_path

WORKERS = 16
BACKLOG = 1024
IDLE_SECONDS = 15


class _Server(HTTPServer):
    """Answers connections on a fixed pool of threads, behind a deep accept queue.

    linkinator 7.6 requests each link as soon as it finds it (its --concurrency does not bound
    that), so crawling a 2,000-page site keeps some 2,000 connections open at once. With a
    thread each they compete for the GIL, a 128-deep accept queue overflows, and under load the
    crawler sees ECONNRESET; a few threads answer the accepted connections in turn instead.
    """

    request_queue_size = BACKLOG

    def __init__(self, address: tuple[str, int], handler: Callable[..., BaseRequestHandler]) -> None:
        super().__init__(address, handler)
        self._workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="qa-serve")

    def process_request(self, request: socket.socket, client_address: tuple[str, int]) -> None:
        """Queue an accepted connection for the pool."""
        self._workers.submit(self._answer, request, client_address)

    def _answer(self, request: socket.socket, client_address: tuple[str, int]) -> None:
        """Serve one connection on a pool thread, then close it."""
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - one failed connection must not stop the pool
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def handle_error(self, request: object, client_address: object) -> None:
        """Ignore clients that hang up early."""

    def server_close(self) -> None:
        """Close the listening socket and drop the queued connections; running ones finish alone."""
        super().server_close()
        self._workers.shutdown(wait=False, cancel_futures=True)


class _SubPathHandler(SimpleHTTPRequestHandler):
    """Serves the site under `base_path` only; everything above it is 404."""

    base_path = "/"
    timeout = IDLE_SECONDS  # a connection that sends nothing (say, a spare preconnect) frees its worker

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
