"""Command line: `build` (default), `check` and `serve`; progress, summaries and exit codes.

Exit codes: 0 success (warnings allowed unless --strict), 1 problems in the input, 2 usage,
3 a bug in scholarsite (with its traceback), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scholarsite import write
from scholarsite.errors import BuildError, Diagnostic, Severity, count, fails
from scholarsite.inputs.freshness import fingerprint_of, unchanged_since_last_build

if TYPE_CHECKING:
    from scholarsite.pipeline import CheckResult

OK, FAILED, BUG, INTERRUPTED = 0, 1, 3, 130  # usage errors exit 2 through argparse


def print_diagnostics(diagnostics: Sequence[Diagnostic]) -> None:
    """Every problem on stderr, sorted by file and line."""
    for diagnostic in sorted(diagnostics):
        print(diagnostic.format(), file=sys.stderr)


def tally(diagnostics: Sequence[Diagnostic]) -> str:
    """'0 errors, 2 warnings'."""
    errors, warnings = count(diagnostics, Severity.ERROR), count(diagnostics, Severity.WARNING)
    return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}"


def check_report(result: CheckResult) -> dict[str, object]:
    """The figures `check` prints, as plain data."""
    site, diagnostics = result.data.site, result.diagnostics
    years = [y.year for y in site.years]
    return {
        "authors": len(site.authors),
        "records": site.record_count,
        "papers": len(site.papers),
        "shared_papers": len(site.shared_papers),
        "subjects": len(site.subjects),
        "years": len(years),
        "first_year": min(years, default=None),
        "last_year": max(years, default=None),
        "errors": count(diagnostics, Severity.ERROR),
        "warnings": count(diagnostics, Severity.WARNING),
        "notes": count(diagnostics, Severity.NOTE),
    }


def run_check(root: Path, site_dir: Path | None, strict: bool, as_json: bool, jobs: int | None) -> int:
    """Find every problem a build would find (rendering pages in memory); print them and a summary."""
    from scholarsite.pipeline import check

    try:
        result = check(root, site_dir, strict=strict, workers=jobs)
    except write.WriteConflict as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    report = check_report(result)
    failed = fails(result.diagnostics, strict)
    if as_json:
        report["diagnostics"] = [d.as_dict() for d in result.diagnostics]
        report["ok"] = not failed
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return FAILED if failed else OK
    print_diagnostics(result.diagnostics)
    span = f" ({report['first_year']}-{report['last_year']})" if report["years"] else ""
    print(
        f"{report['authors']} authors, {report['records']} records, {report['papers']} distinct papers, "
        f"{report['shared_papers']} shared papers, {report['subjects']} subjects, "
        f"{report['years']} years{span}; {tally(result.diagnostics)}"
    )
    return FAILED if failed else OK


def build_or_skip(
    root: Path, site_dir: Path | None, strict: bool, quiet: bool, jobs: int | None
) -> tuple[write.SyncReport, float, tuple[Diagnostic, ...]]:
    """(report, seconds, diagnostics) of a build; when the inputs are those of the last build
    and the site is intact, without loading the build at all (its imports take 0.4 s)."""
    started = time.perf_counter()
    fingerprint = fingerprint_of(root)
    unchanged = unchanged_since_last_build(root, site_dir or root / "site", fingerprint)
    if unchanged is not None:
        report, diagnostics = unchanged
        if fails(diagnostics, strict):
            raise BuildError(diagnostics)
        return report, time.perf_counter() - started, diagnostics
    from scholarsite.pipeline import rebuild
    from scholarsite.progress import BuildProgress

    with BuildProgress(quiet) as progress:
        result = rebuild(root, site_dir, fingerprint, strict=strict, workers=jobs, progress=progress)
    return result.report, result.seconds, result.diagnostics


def run_build(root: Path, site_dir: Path | None, strict: bool, quiet: bool, jobs: int | None) -> int:
    """Build the site; on any problem leave site/ as it was."""
    try:
        report, seconds, diagnostics = build_or_skip(root, site_dir, strict, quiet, jobs)
    except BuildError as exc:
        print_diagnostics(exc.diagnostics)
        print(f"build failed ({tally(exc.diagnostics)}); site/ left unchanged", file=sys.stderr)
        return FAILED
    except write.WriteConflict as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    print_diagnostics(diagnostics)
    for path in report.foreign:
        print(f"site/{path}: note: not produced by the build (left in place)", file=sys.stderr)
    print(report.summary(seconds))
    return OK


COMMANDS = ("build", "check", "serve")


def parser() -> argparse.ArgumentParser:
    """The argument parser for all commands; `--project` is accepted before or after the command."""
    project = argparse.ArgumentParser(add_help=False)
    project.add_argument(
        "--project", type=Path, default=argparse.SUPPRESS, help="project folder (default: current folder)"
    )
    main = argparse.ArgumentParser(
        prog="python build.py",
        parents=[project],
        description="Build a static site of publication records (default command: build).",
    )
    commands = main.add_subparsers(dest="command")
    shared = argparse.ArgumentParser(add_help=False, parents=[project])
    shared.add_argument("--site", type=Path, default=None, help="output folder (default: PROJECT/site)")
    shared.add_argument("--strict", action="store_true", help="fail on warnings too")
    shared.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for rendering (default: one per core)",
    )
    build = commands.add_parser("build", parents=[shared], help="build site/ from seeds/ (the default)")
    build.add_argument(
        "--quiet", action="store_true", help="no progress display (none is shown off a terminal)"
    )
    check = commands.add_parser(
        "check",
        parents=[shared],
        help="find every problem a build would find (pages are rendered in memory); write nothing",
    )
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    serve = commands.add_parser(
        "serve", parents=[project], help="build, serve on 127.0.0.1 and rebuild on changes"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--open", action="store_true", help="open a browser")
    serve.add_argument("--base-path", default="/", help="serve under a sub-path, e.g. /scholarsite/")
    return main


def with_default_command(argv: Sequence[str]) -> list[str]:
    """`build` when no command is named (`python build.py --strict`)."""
    words = list(argv)
    if any(word in COMMANDS for word in words) or any(w in ("-h", "--help") for w in words):
        return words
    return ["build", *words]


BUG_REPORT = (
    "this is a bug in scholarsite, not a problem with your project: please report it to its "
    "maintainers with the traceback above and the command you ran"
)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; returns the exit code. Problems a user can cause are messages; anything
    else is a bug in scholarsite, shown with its traceback and a request to report it."""
    try:
        return run(argv)
    except KeyboardInterrupt:
        print("interrupted; site/ is wholly the old site or the new one", file=sys.stderr)
        return INTERRUPTED
    except OSError as exc:  # the disk, permissions: the machine, not scholarsite
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    except Exception:  # noqa: BLE001 - the last line of defence
        traceback.print_exc()
        print(BUG_REPORT, file=sys.stderr)
        return BUG


def run(argv: Sequence[str] | None) -> int:
    """Parse the arguments and run the command."""
    args = parser().parse_args(with_default_command(sys.argv[1:] if argv is None else argv))
    root = getattr(args, "project", Path.cwd()).resolve()
    if args.command == "check":
        return run_check(root, args.site, args.strict, args.json, args.jobs)
    if args.command == "serve":
        from scholarsite.preview import server as serve

        return serve.run(root, args.host, args.port, args.base_path, args.open)
    return run_build(root, args.site, args.strict, args.quiet, args.jobs)
