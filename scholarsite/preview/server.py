"""Live preview: build, serve `site/` (optionally under a sub-path), rebuild on changes, and
make open browser pages reload themselves.

The server (livereload's tornado loop) only serves files; rebuilds run on the watcher's
thread, so the server keeps answering while a build runs. When the pages of a rebuild are in
place, open browsers reload; the search index is brought up to date right after. While the
last build has failed, HTML requests get an error page listing the diagnostics; it reloads to
the site as soon as a build succeeds: every failure a user can cause (bad input, a full or
read-only disk, site/ deleted mid-write, a conflict in site/) shows there, and so does a bug in
scholarsite, whose traceback goes to the terminal. Warnings of the last build show in a banner.

The server only ever redirects to a path on itself, never lists a folder, and binds
127.0.0.1 unless told otherwise (with a warning when other machines can reach it).
"""

from __future__ import annotations

import errno
import html
import ipaddress
import logging
import mimetypes
import posixpath
import signal
import socket
import threading
import traceback
import webbrowser
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from livereload import Server
from livereload.handlers import LiveReloadHandler
from livereload.watcher import Watcher
from tornado.ioloop import IOLoop

from scholarsite import pipeline, write
from scholarsite.errors import BuildError, Diagnostic, Severity, printable
from scholarsite.inputs.cache import CACHE_FILE, ParseCache
from scholarsite.outputs.memo import MEMO_FILE, Memo
from scholarsite.preview.watch import InputWatcher

Respond = Callable[[str, list[tuple[str, str]]], object]
HTML = ("Content-Type", "text/html; charset=utf-8")
# The warnings banner's look, served as a file (the pages' Content-Security-Policy refuses
# style attributes and inline styles), at a path outside any base path.
BANNER_STYLESHEET = "/.scholarsite-preview.css"
BANNER_CSS = (
    b"#build-warnings{position:sticky;bottom:0;background:#fff8e1;color:#222;"
    b"border-top:3px solid #b26a00;padding:.5rem 1rem;max-height:30vh;overflow:auto}"
)
PORT_IN_USE = "error: port {port} on {host} is already in use\n    hint: choose another with --port"
EXPOSED = (
    "warning: serving on {host}: the preview is reachable from other machines; it is meant for local use"
    "\n    hint: leave out --host to serve on 127.0.0.1 only"
)
REPORT_BUG = (
    "this is a bug in scholarsite, not a problem in your project; please report it, with the "
    "traceback printed in the terminal, at the project's issue tracker"
)


class ReloadSignal(Watcher):
    """livereload's watcher hook, driven by our builds instead of by polling the disk."""

    def __init__(self) -> None:
        super().__init__()
        self.loop: IOLoop | None = None

    def start(self, callback: Callable[[], None]) -> bool:
        """Called by livereload on its loop: remember the loop; no polling is needed."""
        self.loop = IOLoop.current()
        return True

    def examine(self) -> tuple[None, None]:
        """Nothing to poll."""
        return None, None

    def send(self) -> None:
        """Tell every open page to reload (safe to call from any thread)."""
        if self.loop is not None:
            self.loop.add_callback(LiveReloadHandler.reload_waiters, "*")


class Preview:
    """The state shared by the watcher and the web app: the last build's outcome."""

    def __init__(self, root: Path, reload: Callable[[], None] = lambda: None):
        self.root = root
        self.site_dir = root / "site"
        self.problems: list[str] = []
        self.warnings: list[str] = []
        self.cache = ParseCache(root / CACHE_FILE)
        self.memo = Memo(root / MEMO_FILE)
        self.reload = reload
        self.lock = threading.Lock()  # one build at a time

    def rebuild(self, changed: Iterable[str] = ()) -> None:
        """Build; reload browsers once the pages are in place; print what happened.

        Nothing escapes: whatever fails shows as the error page until a build succeeds, so the
        watcher thread (and with it the preview) lives on.
        """
        with self.lock:
            if changed:
                print(f"rebuilding after {len(set(changed))} change(s)…", flush=True)
            try:
                result = pipeline.build(self.root, cache=self.cache, memo=self.memo, search_after=self.done)
            except BuildError as exc:
                self.fail([d.format() for d in exc.diagnostics])
            except (write.WriteConflict, OSError) as exc:
                self.fail([describe(exc)])
            except Exception as exc:  # a bug in scholarsite: still the error page, and ask for a report
                traceback.print_exc()
                self.fail([printable(f"error: {type(exc).__name__}: {exc}"), REPORT_BUG])
            else:
                print(result.summary(), flush=True)

    def site_gone(self) -> bool:
        """Whether the site of the last (successful) build has been deleted meanwhile."""
        return not self.problems and not (self.site_dir / write.MANIFEST).is_file()

    def done(self, report: write.SyncReport, diagnostics: Iterable[Diagnostic]) -> None:
        """The pages of a build are in place: show its warnings, and reload browsers."""
        self.problems = []
        self.warnings = list(dict.fromkeys(d.format() for d in diagnostics if d.severity == Severity.WARNING))
        if self.warnings:
            print("\n".join(self.warnings), flush=True)
        self.reload()

    def fail(self, problems: list[str]) -> None:
        """Remember, print and show the problems of a failed build."""
        self.problems = problems
        print("\n".join(problems) + "\nbuild failed; serving an error page", flush=True)
        self.reload()


def describe(exc: Exception) -> str:
    """'error: /…/site/x.html: No space left on device' for an OSError, the message otherwise;
    control characters (from a file name, say) are escaped for the terminal."""
    if isinstance(exc, OSError) and exc.strerror:
        where = f"{exc.filename}: " if exc.filename else ""
        return printable(f"error: {where}{exc.strerror}")
    return printable(f"error: {exc}")


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


def with_banner(page: bytes, warnings: list[str]) -> bytes:
    """A page with the last build's warnings shown at its foot (preview only)."""
    items = "".join(f"<li><pre>{html.escape(w)}</pre></li>" for w in warnings)
    banner = (
        f'<link rel="stylesheet" href="{BANNER_STYLESHEET}"><aside id="build-warnings">'
        f"<strong>Build warnings</strong><ul>{items}</ul></aside>"
    ).encode()
    head, found, tail = page.rpartition(b"</body>")
    return head + banner + found + tail if found else page + banner


def normalised(relative: str) -> str:
    """A URL path inside the site without empty, '.' or '..' segments: 'papers/x', or ''."""
    return posixpath.normpath("/" + relative).lstrip("/")


def resolve(site_dir: Path, relative: str) -> Path | None:
    """The file for a URL path inside site/ (folders give their index.html, never a listing),
    or None."""
    target = site_dir / normalised(relative)
    if target.is_dir():
        target = target / "index.html"
    try:  # ValueError: outside site/ through a link, or a NUL in the path
        target.resolve().relative_to(site_dir.resolve())
    except ValueError:
        return None
    return target if target.is_file() else None


def same_origin(location: str) -> bool:
    """True for a path on this server: one leading '/' (so no scheme), and not '//' or '/\\',
    which browsers read as the start of another host's URL."""
    return location.startswith("/") and location[1:2] not in ("/", "\\")


def folder_location(base_path: str, relative: str) -> str | None:
    """The URL of the folder at `relative` with its trailing slash, built from the normalised
    path, or None when it would not be a path on this server."""
    clean = normalised(relative)
    location = quote(f"{base_path}{clean}/" if clean else base_path)
    return location if same_origin(location) else None


def read(file: Path) -> bytes | None:
    """The bytes of a file, or None when a rebuild removed it since it was found."""
    try:
        return file.read_bytes()
    except OSError:
        return None


def wsgi_path(environ: dict) -> str:
    """The request's decoded path (WSGI hands it over as bytes read as latin-1)."""
    return environ.get("PATH_INFO", "/").encode("latin-1").decode("utf-8", "replace")


class PreviewApp:
    """A WSGI app serving site/ under a base path, or the error page after a failed build."""

    def __init__(self, preview: Preview, base_path: str):
        self.preview = preview
        self.base_path = base_path

    def __call__(self, environ: dict, respond: Respond) -> Iterable[bytes]:
        path = wsgi_path(environ)
        if path == BANNER_STYLESHEET:
            return self.reply(respond, "200 OK", BANNER_CSS, [("Content-Type", "text/css")])
        if not path.startswith(self.base_path):
            if path in ("/", self.base_path.rstrip("/")):
                return self.reply(respond, "302 Found", b"", [("Location", quote(self.base_path))])
            return self.not_found(respond)
        problems = self.preview.problems
        if problems and path.endswith(("/", ".html")):
            return self.reply(respond, "500 Internal Server Error", error_page(problems), [HTML])
        relative = path[len(self.base_path) :]
        file = resolve(self.preview.site_dir, relative)
        if file is None:
            return self.not_found(respond)
        if file.name == "index.html" and not path.endswith(("/", ".html")):
            return self.redirect(respond, folder_location(self.base_path, relative))
        return self.send_file(respond, file)

    def send_file(self, respond: Respond, file: Path) -> list[bytes]:
        """A file of the site; HTML pages with the last build's warnings."""
        body = read(file)
        if body is None:
            return self.not_found(respond)
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        warnings = self.preview.warnings
        if kind == "text/html" and warnings:
            body = with_banner(body, warnings)
        return self.reply(respond, "200 OK", body, [("Content-Type", kind)])

    def redirect(self, respond: Respond, location: str | None) -> list[bytes]:
        """A permanent redirect to a path on this server; a 404 without one."""
        if location is None:
            return self.not_found(respond)
        return self.reply(respond, "301 Moved Permanently", b"", [("Location", location)])

    def not_found(self, respond: Respond) -> list[bytes]:
        """The site's own 404 page (a plain one when the site has none)."""
        body = read(self.preview.site_dir / "404.html") or b"<!doctype html><title>Not found</title>"
        return self.reply(respond, "404 Not Found", body, [HTML])

    @staticmethod
    def reply(respond: Respond, status: str, body: bytes, headers: list[tuple[str, str]]) -> list[bytes]:
        """Send a response that browsers never cache (the preview changes all the time)."""
        respond(status, [*headers, ("Cache-Control", "no-store")])
        return [body]


def normalise_base_path(base_path: str) -> str:
    """'/scholarsite/' from 'scholarsite', '/scholarsite' or '/scholarsite/'."""
    inner = base_path.strip("/")
    return f"/{inner}/" if inner else "/"


def exposed(host: str) -> bool:
    """True unless every address `host` stands for is a loopback one (one that cannot be
    reached from other machines); True when it does not resolve."""
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except (OSError, UnicodeError):
        return True
    return not all(ipaddress.ip_address(address).is_loopback for address in addresses)


class QuietServer(Server):
    """livereload's server without its log lines (`[I 261201 …] Serving on`, `Browser
    Connected`): the preview prints its own, shorter ones."""

    def _setup_logging(self) -> None:
        logging.getLogger("livereload").setLevel(logging.WARNING)
        logging.getLogger("tornado").addHandler(logging.NullHandler())  # keeps tornado's own setup off

    def serve(self, port: int = 5500, **options: Any) -> None:
        """livereload's `serve`, remembering the port for the reload script."""
        self.port = port
        super().serve(port=port, **options)

    def get_web_handlers(self, script: bytes) -> list:
        """livereload's handlers, injecting `<script src>` instead of its inline snippet, which
        the pages' Content-Security-Policy (`script-src 'self'`) would refuse."""
        reload_script = f'<script src="/livereload.js?port={self.port}" defer></script>'
        return super().get_web_handlers(reload_script.encode())


def listen_problem(host: str, port: int) -> str | None:
    """Why the preview cannot listen on host:port (the port taken, an unknown or foreign
    address), or None when it can."""
    try:
        family, kind, _, _, address = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)[0]
    except (OSError, UnicodeError) as exc:
        return f"error: cannot listen on {host}:{port}: not an address of this machine ({exc})"
    with socket.socket(family, kind) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return PORT_IN_USE.format(host=host, port=port)
            return f"error: cannot listen on {host}:{port}: {exc.strerror}"
    return None


def run(root: Path, host: str, port: int, base_path: str, open_browser: bool) -> int:
    """Serve until Ctrl-C; 1 with a message when it cannot listen where asked."""
    if problem := listen_problem(host, port):
        print(problem, flush=True)
        return 1
    if exposed(host):
        print(EXPOSED.format(host=host), flush=True)
    base = normalise_base_path(base_path)
    reload = ReloadSignal()
    preview = Preview(root, reload.send)
    preview.rebuild()
    watcher = InputWatcher(root, preview.rebuild, preview.site_gone)
    watcher.start()
    server = QuietServer(app=PreviewApp(preview, base), watcher=reload)
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
    finally:
        watcher.stop()
    return 0
