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
127.0.0.1 unless told otherwise (with a warning when other machines can reach it). It speaks
HTTP as a file server should: HEAD is GET without the body, every other method is 405 with an
`Allow` header, and a request target over 8 KiB is 414.
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
import webbrowser
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

from livereload import Server
from livereload.handlers import ForceReloadHandler, LiveReloadHandler
from livereload.watcher import Watcher
from tornado import httputil, web
from tornado.escape import url_unescape
from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop
from tornado.netutil import bind_sockets

from scholarsite import write
from scholarsite.inputs.config import NONE_GIVEN, Overrides
from scholarsite.preview import banner
from scholarsite.preview.builds import BuildProcess, LocalBuilds
from scholarsite.preview.watch import InputWatcher

Respond = Callable[[str, list[tuple[str, str]]], object]
HTML = ("Content-Type", "text/html; charset=utf-8")
ALLOWED_METHODS = "GET, HEAD"
MAX_TARGET = 8 * 1024  # a longer request target (path and query) is 414 URI Too Long
MAX_HEAD = 1024 * 1024  # tornado reads a request head up to this size (its default, 64 KiB, would
# drop a 100 KB request line without an answer); a longer head closes the connection
HEAD_END = b"</head>"
# The preview's live script (`live.js`, a file from this server, not an inline loader, which the
# pages' Content-Security-Policy `script-src 'self'` refuses): it opens the websocket that
# tells the page to show a build's pages, in place (IN_PLACE) or by a reload.
LIVE_SCRIPT = '<script src="/livereload.js?port={port}" defer></script>'
LIVE_JS = (Path(__file__).parent / "live.js").read_bytes()
IN_PLACE = "pages"  # the reload path of a build that changed only pages (live.js knows it)
NOT_HERE = (
    "error: cannot listen on {host}:{port}: not an address of this machine ({reason})\n    hint: check --host"
)
PORT_IN_USE = "error: port {port} on {host} is already in use\n    hint: choose another with --port"
EXPOSED = (
    "warning: serving on {host}: the preview is reachable from other machines; it is meant for local use"
    "\n    hint: leave out --host to serve on 127.0.0.1 only"
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

    def send(self, path: str = "*") -> None:
        """Tell every open page to reload (safe to call from any thread)."""
        if self.loop is not None:
            self.loop.add_callback(LiveReloadHandler.reload_waiters, path)

    def send_pages(self) -> None:
        """Tell every open page that only pages changed: it puts its new body in place (`live.js`)."""
        self.send(IN_PLACE)


class Preview:
    """The state shared by the watcher and the web app: the last build's outcome."""

    def __init__(
        self,
        root: Path,
        reload: Callable[[], None] = lambda: None,  # browsers reload the page they show
        overrides: Overrides = NONE_GIVEN,
        builds: LocalBuilds | BuildProcess | None = None,
        refresh: Callable[[], None] | None = None,  # ... or put its new body in place (else reload)
    ):
        self.root = root
        self.site_dir = root / "site"
        self.problems: list[str] = []
        self.warnings: list[str] = []
        self.announced = False  # the warnings of the build under way are printed
        self.opened: str | None = None  # the site path of the page last served: rebuilt first
        self.builds = builds or LocalBuilds(root, overrides)
        self.reload = reload
        self.refresh = refresh or reload
        self.lock = threading.Lock()  # one build at a time

    def rebuild(self, changed: Iterable[str] | None = None) -> None:
        """Build the inputs as they are after the watcher's `changed` paths (None: not known);
        reload browsers once the pages are in place; print what happened.

        Nothing escapes: whatever fails shows as the error page until a build succeeds, so the
        watcher thread (and with it the preview) lives on.
        """
        with self.lock:
            if changed:
                print(f"rebuilding after {len(set(changed))} change(s)…", flush=True)
            self.announced = False
            outcome = self.builds.build(self.done, self.opened, changed)
            if outcome.problems:
                self.fail(outcome.problems)
            else:
                print(outcome.summary, flush=True)

    def site_gone(self) -> bool:
        """Whether the site of the last (successful) build has been deleted meanwhile."""
        return not self.problems and not (self.site_dir / write.MANIFEST).is_file()

    def done(self, warnings: list[str], pages_only: bool = False) -> None:
        """Pages of a build are in place: show its warnings (once a build), and have browsers
        show them (in place when only pages changed, and the last build did not fail)."""
        failed, self.problems = bool(self.problems), []
        if warnings and not self.announced:
            print("\n".join(warnings), flush=True)
        self.warnings, self.announced = warnings, True
        (self.refresh if pages_only and not failed else self.reload)()

    def fail(self, problems: list[str]) -> None:
        """Remember, print and show the problems of a failed build."""
        self.problems = problems
        print("\n".join(problems) + "\nbuild failed; serving an error page", flush=True)
        self.reload()


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


class Answer(NamedTuple):
    """A response: status line ('404 Not Found'), headers and body."""

    status: str
    headers: list[tuple[str, str]]
    body: bytes


class PreviewApp:
    """Serves site/ under a base path, or the error page after a failed build: as a WSGI app,
    and through `answer` for the preview's own HTTP handler."""

    def __init__(self, preview: Preview, base_path: str):
        self.preview = preview
        self.base_path = base_path

    def __call__(self, environ: dict, respond: Respond) -> Iterable[bytes]:
        status, headers, body = self.answer(wsgi_path(environ))
        respond(status, headers)
        return [body]

    def answer(self, path: str) -> Answer:
        """The response to a GET of the decoded URL path `path`."""
        if path in banner.ASSETS:
            content, kind = banner.ASSETS[path]
            return self.reply("200 OK", content, [("Content-Type", kind)])
        if not path.startswith(self.base_path):
            if path in ("/", self.base_path.rstrip("/")):
                return self.reply("302 Found", b"", [("Location", quote(self.base_path))])
            return self.not_found()
        problems = self.preview.problems
        if problems and path.endswith(("/", ".html")):
            return self.reply("500 Internal Server Error", error_page(problems), [HTML])
        relative = path[len(self.base_path) :]
        file = resolve(self.preview.site_dir, relative)
        if file is None:
            return self.not_found()
        if file.name == "index.html" and not path.endswith(("/", ".html")):
            return self.redirect(folder_location(self.base_path, relative))
        return self.send_file(file)

    def send_file(self, file: Path) -> Answer:
        """A file of the site; HTML pages with the last build's warnings."""
        body = read(file)
        if body is None:
            return self.not_found()
        kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        warnings = self.preview.warnings
        if kind == "text/html":
            self.preview.opened = file.relative_to(self.preview.site_dir).as_posix()
            if warnings:
                body = banner.with_banner(body, warnings)
        return self.reply("200 OK", body, [("Content-Type", kind)])

    def redirect(self, location: str | None) -> Answer:
        """A permanent redirect to a path on this server; a 404 without one."""
        if location is None:
            return self.not_found()
        return self.reply("301 Moved Permanently", b"", [("Location", location)])

    def not_found(self) -> Answer:
        """The site's own 404 page (a plain one when the site has none)."""
        body = read(self.preview.site_dir / "404.html") or b"<!doctype html><title>Not found</title>"
        return self.reply("404 Not Found", body, [HTML])

    @staticmethod
    def reply(status: str, body: bytes, headers: list[tuple[str, str]]) -> Answer:
        """A response that browsers never cache (the preview changes all the time)."""
        return Answer(status, [*headers, ("Cache-Control", "no-store")], body)


def with_live_script(body: bytes, headers: list[tuple[str, str]], script: bytes) -> bytes:
    """An HTML page with livereload's `script` before its `</head>`; anything else as it is."""
    html_page = any(name == "Content-Type" and "html" in value for name, value in headers)
    return body.replace(HEAD_END, script + HEAD_END, 1) if html_page else body


def request_path(request: httputil.HTTPServerRequest) -> str:
    """The request's path, percent-decoded as UTF-8 (invalid bytes replaced)."""
    return url_unescape(request.path, encoding=None, plus=False).decode("utf-8", "replace")


class LiveScriptHandler(web.RequestHandler):
    """The live script (`live.js`)."""

    def get(self) -> None:
        self.set_header("Content-Type", "application/javascript; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(LIVE_JS)


class SiteHandler(web.RequestHandler):
    """The site over HTTP: GET; HEAD, which is GET's status and headers without its body; any
    other method is 405 with `Allow: GET, HEAD`; a request target over MAX_TARGET is 414."""

    def initialize(self, site: PreviewApp, port: int) -> None:
        self.site = site
        self.live_script = LIVE_SCRIPT.format(port=port).encode()

    def set_default_headers(self) -> None:
        """Error responses (405, 414) are not cached either."""
        self.set_header("Cache-Control", "no-store")

    def compute_etag(self) -> None:
        """No ETag: every answer is fresh (and never a 304)."""
        return None

    def prepare(self) -> None:
        if len(self.request.uri or "") > MAX_TARGET:
            raise web.HTTPError(414)

    def get(self) -> None:
        status, headers, body = self.site.answer(request_path(self.request))
        code, _, reason = status.partition(" ")
        self.set_status(int(code), reason)
        for name, value in headers:
            self.set_header(name, value)
        self.finish(with_live_script(body, headers, self.live_script))  # tornado leaves the body out for HEAD

    head = get  # the other methods are tornado's: 405 (see write_error)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Tornado's error page, with the `Allow` header a 405 must carry."""
        if status_code == 405:
            self.set_header("Allow", ALLOWED_METHODS)
        super().write_error(status_code, **kwargs)


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


class CannotListen(Exception):
    """The preview cannot listen where asked; the message says why, for the terminal."""


class PreviewServer(Server):
    """livereload's server on sockets bound already, serving the site through SiteHandler
    (livereload's own WSGI bridge answers HEAD with a broken reply and every method with the
    page), and without its log lines (`[I 261201 …] Serving on`, `Browser Connected`): the
    preview prints its own, shorter ones."""

    def __init__(self, site: PreviewApp, watcher: Watcher, sockets: list[socket.socket]):
        super().__init__(app=site, watcher=watcher)
        self.site = site
        self.sockets = sockets

    def _setup_logging(self) -> None:
        logging.getLogger("livereload").setLevel(logging.WARNING)
        logging.getLogger("tornado").addHandler(logging.NullHandler())  # keeps tornado's own setup off

    def application(
        self, port: int, host: str, liveport: int | None = None, debug: Any = None, live_css: bool = True
    ) -> None:
        """Called by `serve`: the live-reload endpoints and the site, on our sockets."""
        LiveReloadHandler.watcher = self.watcher
        LiveReloadHandler.live_css = live_css
        app = web.Application(
            [
                (r"/livereload", LiveReloadHandler),
                (r"/forcereload", ForceReloadHandler),
                (r"/livereload.js", LiveScriptHandler),
                (r".*", SiteHandler, {"site": self.site, "port": self.sockets[0].getsockname()[1]}),
            ]
        )
        HTTPServer(app, max_header_size=MAX_HEAD).add_sockets(self.sockets)


def listen(host: str, port: int) -> list[socket.socket]:
    """Listening sockets on host:port (port 0: a free port, the same for every address of
    `host`); CannotListen naming why not (the port taken, an unknown or foreign address)."""
    try:
        return bind_sockets(port, host or "127.0.0.1")  # as livereload did with an empty host
    except (socket.gaierror, UnicodeError) as exc:
        raise CannotListen(NOT_HERE.format(host=host, port=port, reason=exc)) from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise CannotListen(PORT_IN_USE.format(host=host, port=port)) from None
        raise CannotListen(f"error: cannot listen on {host}:{port}: {exc.strerror}") from None


def listen_problem(host: str, port: int) -> str | None:
    """Why the preview cannot listen on host:port, or None when it can (checked before the
    first build, so a mistake is reported at once)."""
    try:
        sockets = listen(host, port)
    except CannotListen as exc:
        return str(exc)
    for probe in sockets:
        probe.close()
    return None


def run(root: Path, host: str, port: int, base_path: str, open_browser: bool, overrides: Overrides) -> int:
    """Serve until Ctrl-C; 1 with a message when it cannot listen where asked. Port 0 is any
    free port; the one chosen is in the printed URL."""
    if problem := listen_problem(host, port):
        print(problem, flush=True)
        return 1
    if exposed(host):
        print(EXPOSED.format(host=host), flush=True)
    reload = ReloadSignal()
    builds = BuildProcess(root, overrides)
    try:
        preview = Preview(root, reload.send, overrides, builds, reload.send_pages)
        return serve(preview, reload, (host, port), normalise_base_path(base_path), open_browser)
    finally:
        builds.close()


def serve(preview: Preview, reload: ReloadSignal, where: tuple[str, int], base: str, browse: bool) -> int:
    """Serve `preview` at `where` (host, port) until Ctrl-C. The site of the last build is
    served at once while it is brought up to date (a large collection is browsable from the
    first second); without one, the first build comes first. The inputs are watched from the
    start: a save made while the first build runs is built after it."""
    built = threading.Event()  # a site missing before the first build is not a site deleted
    watcher = InputWatcher(preview.root, preview.rebuild, lambda: built.is_set() and preview.site_gone())
    watcher.start()
    try:
        served_before = (preview.site_dir / write.MANIFEST).is_file()
        if not served_before:
            preview.rebuild()
        built.set()
        try:  # the port can have been taken while the site was built
            sockets = listen(*where)
        except CannotListen as exc:
            print(exc, flush=True)
            return 1
        if served_before:
            threading.Thread(target=preview.rebuild, name="scholarsite-first-build", daemon=True).start()
        host, port = where[0], sockets[0].getsockname()[1]
        try:  # from here Ctrl-C is a clean stop, even before the server's loop takes it over
            server = PreviewServer(PreviewApp(preview, base), reload, sockets)
            url = f"http://{host}:{port}{base}"
            print(f"Serving {preview.site_dir} at {url} (Ctrl-C to stop)", flush=True)
            if browse:
                threading.Timer(1.0, webbrowser.open, [url]).start()
            # Ctrl-C (and a plain `kill`) stop the server cleanly, even when a shell started us
            # in the background with SIGINT ignored.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, signal.default_int_handler)
            server.serve(port=port, host=host, debug=False, restart_delay=0)
        except KeyboardInterrupt:
            pass
        return 0
    finally:
        watcher.stop()
