"""Live preview: build, serve `site/` (optionally under a sub-path), rebuild on changes, and
make open browser pages reload themselves, using the `livereload` package.

While the last build has failed, HTML requests get an error page listing the diagnostics;
it reloads to the site as soon as a build succeeds. `site/` keeps the last good build.
"""

from __future__ import annotations

import errno
import html
import mimetypes
import posixpath
import signal
import socket
import threading
import time
import webbrowser
from collections.abc import Callable, Iterable
from pathlib import Path

from livereload import Server
from livereload.handlers import LiveReloadHandler
from livereload.watcher import Watcher

from scholarsite import pipeline, write
from scholarsite.errors import BuildError
from scholarsite.inputs.cache import CACHE_FILE, ParseCache

WATCHED = ("seeds", "content", "templates", "assets", "site.yaml")
SETTLE_SECONDS = 0.3
POLL_SECONDS = 0.1
Respond = Callable[[str, list[tuple[str, str]]], object]
HTML = ("Content-Type", "text/html; charset=utf-8")
PORT_IN_USE = "error: port {port} on {host} is already in use\n    hint: choose another with --port"


class Preview:
    """The state shared by the watcher and the web app: the last build's outcome."""

    def __init__(self, root: Path):
        self.root = root
        self.site_dir = root / "site"
        self.problems: list[str] = []
        self.cache = ParseCache(root / CACHE_FILE)

    def rebuild(self) -> None:
        """Build; remember and print the problems of a failed build."""
        try:
            result = pipeline.build(self.root, cache=self.cache)
        except BuildError as exc:
            self.problems = [d.format() for d in exc.diagnostics]
            print("\n".join(self.problems) + "\nbuild failed; serving an error page", flush=True)
            return
        except write.WriteConflict as exc:
            self.problems = [str(exc)]
            print(f"error: {exc}", flush=True)
            return
        self.problems = []
        print(result.summary(), flush=True)


def error_page(problems: list[str]) -> bytes:
    """The page shown instead of the site while the build is broken."""
    items = "".join(f"<li><pre>{html.escape(p)}</pre></li>" for p in problems)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<title>Build failed · scholarsite</title>"
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}"
        "pre{white-space:pre-wrap;background:#fee;padding:.5rem;border-left:4px solid #b00}</style>"
        f'</head><body><h1 id="build-failed">Build failed</h1><p>Fix these problems; this page reloads '
        f"by itself when the build succeeds.</p><ul>{items}</ul></body></html>"
    ).encode()


def resolve(site_dir: Path, relative: str) -> Path | None:
    """The file for a URL path inside site/ (folders give their index.html), or None."""
    clean = posixpath.normpath("/" + relative).lstrip("/")
    target = (site_dir / clean) if clean and clean != "." else site_dir
    if target.is_dir():
        target = target / "index.html"
    try:
        target.resolve().relative_to(site_dir.resolve())
    except ValueError:
        return None
    return target if target.is_file() else None


class PreviewApp:
    """A WSGI app serving site/ under a base path, or the error page after a failed build."""

    def __init__(self, preview: Preview, base_path: str):
        self.preview = preview
        self.base_path = base_path

    def __call__(self, environ: dict, respond: Respond) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "/")
        if not path.startswith(self.base_path):
            if path in ("/", self.base_path.rstrip("/")):
                return self.reply(respond, "302 Found", b"", [("Location", self.base_path)])
            return self.not_found(respond)
        if self.preview.problems and (path.endswith("/") or path.endswith(".html")):
            page = error_page(self.preview.problems)
            return self.reply(respond, "500 Internal Server Error", page, [HTML])
        file = resolve(self.preview.site_dir, path[len(self.base_path) :])
        if file is None:
            return self.not_found(respond)
        if file.name == "index.html" and not path.endswith(("/", ".html")):
            return self.reply(respond, "301 Moved Permanently", b"", [("Location", path + "/")])
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        return self.reply(respond, "200 OK", file.read_bytes(), [("Content-Type", kind)])

    def not_found(self, respond: Respond) -> list[bytes]:
        """The site's own 404 page."""
        page = self.preview.site_dir / "404.html"
        body = page.read_bytes() if page.is_file() else b"<!doctype html><title>Not found</title>"
        return self.reply(respond, "404 Not Found", body, [HTML])

    @staticmethod
    def reply(respond: Respond, status: str, body: bytes, headers: list[tuple[str, str]]) -> list[bytes]:
        """Send a response that browsers never cache (the preview changes all the time)."""
        respond(status, [*headers, ("Cache-Control", "no-store")])
        return [body]


class DebouncedWatcher(Watcher):
    """Watches several paths as one: a burst of changes gives a single rebuild."""

    def __init__(self, paths: list[Path], rebuild: Callable[[], None]):
        super().__init__()
        self.rebuild = rebuild
        for path in paths:
            self.watch(str(path))

    def changed_path(self) -> str | None:
        """The first watched path with a change since the last look, if any."""
        found = None
        for path, task in self._tasks.items():
            self._task_mtimes = task["mtimes"]
            if self.is_changed(path, task["ignore"]) and found is None:
                found = path
        return found

    def examine(self) -> tuple[str | None, None]:
        """Wait for a burst to settle, then rebuild once."""
        if self._changes:
            return self._changes.pop()
        self.filepath = self.changed_path()
        if self.filepath is None:
            return None, None
        deadline = time.monotonic() + 2.0
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < SETTLE_SECONDS and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS)
            if self.changed_path():
                quiet_since = time.monotonic()
        self.rebuild()
        return self.filepath, None


def normalise_base_path(base_path: str) -> str:
    """'/scholarsite/' from 'scholarsite', '/scholarsite' or '/scholarsite/'."""
    inner = base_path.strip("/")
    return f"/{inner}/" if inner else "/"


def port_in_use(host: str, port: int) -> bool:
    """True when something already listens on host:port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def run(root: Path, host: str, port: int, base_path: str, open_browser: bool) -> int:
    """Serve until Ctrl-C; 1 with a hint when the port is taken."""
    if port_in_use(host, port):
        print(PORT_IN_USE.format(host=host, port=port), flush=True)
        return 1
    base = normalise_base_path(base_path)
    preview = Preview(root)
    preview.rebuild()
    watcher = DebouncedWatcher([root / name for name in WATCHED], preview.rebuild)
    server = Server(app=PreviewApp(preview, base), watcher=watcher)
    LiveReloadHandler.DEFAULT_RELOAD_TIME = 0  # our watcher already debounces bursts
    url = f"http://{host}:{port}{base}"
    print(f"Serving {preview.site_dir} at {url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, [url]).start()
    # Ctrl-C (and a plain `kill`) stop the server cleanly, even when a shell started us in
    # the background with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        server.serve(port=port, host=host, debug=False, restart_delay=0)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        print(PORT_IN_USE.format(host=host, port=port), flush=True)
        return 1
    return 0
