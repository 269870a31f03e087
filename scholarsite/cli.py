"""Command line: `new`, `add`, `import`, `link-sources`, `check`, `build` (default), `serve`, `deploy`.

Exit codes: 0 success (warnings allowed unless --strict), 1 problems in the input, 2 usage,
3 a bug in scholarsite (with its traceback), 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from scholarsite import arguments, write
from scholarsite.errors import BuildError, Diagnostic, Severity, count, fails, summarised
from scholarsite.inputs.config import NONE_GIVEN, Overrides
from scholarsite.write import ownership, shortcut
from scholarsite.write.report import BuildResult

if TYPE_CHECKING:
    from scholarsite.pipeline import CheckResult

OK, FAILED, BUG, INTERRUPTED = 0, 1, 3, 130  # usage errors exit 2 through argparse


@dataclass(frozen=True)
class Run:
    """What every command takes from the arguments: the project, how much to say (`--quiet`
    only problems, `--verbose` every file too) and the settings given over site.yaml's."""

    root: Path
    quiet: bool = False
    verbose: bool = False
    overrides: Overrides = NONE_GIVEN

    @classmethod
    def of(cls, args: argparse.Namespace) -> Run:
        """The run the parsed arguments ask for (and the environment's settings)."""
        return cls(
            getattr(args, "project", Path.cwd()).resolve(),
            getattr(args, "quiet", False),
            getattr(args, "verbose", False),
            Overrides.given(os.environ, getattr(args, "base_url", None), getattr(args, "portable", False)),
        )


def print_diagnostics(diagnostics: Sequence[Diagnostic], quiet: bool = False, verbose: bool = False) -> None:
    """Every problem on stderr, sorted by file and line (notes left out when `quiet`; many
    notes of one kind said once with their count unless `verbose`)."""
    shown = [d for d in diagnostics if not (quiet and d.severity is Severity.NOTE)]
    for line in summarised(shown, verbose):
        print(line, file=sys.stderr)


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


def run_check(run: Run, site_dir: Path | None, strict: bool, as_json: bool, jobs: int | None) -> int:
    """Find every problem a build would find (rendering pages in memory); print them and a summary."""
    from scholarsite.pipeline import check

    try:
        result = check(run.root, site_dir, strict=strict, overrides=run.overrides, workers=jobs)
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
    print_diagnostics(result.diagnostics, run.quiet, run.verbose)
    span = f" ({report['first_year']}-{report['last_year']})" if report["years"] else ""
    print(
        f"{report['authors']} authors, {report['records']} records, {report['papers']} distinct papers, "
        f"{report['shared_papers']} shared papers, {report['subjects']} subjects, "
        f"{report['years']} years{span}; {tally(result.diagnostics)}"
    )
    return FAILED if failed else OK


def build_or_skip(run: Run, site_dir: Path | None, strict: bool, jobs: int | None) -> BuildResult:
    """A build; when the inputs are those of the last build and the site is intact, without
    loading the build at all (its imports take 0.4 s)."""
    started = time.perf_counter()
    looked = shortcut.look(run.root, site_dir or run.root / "site", run.overrides)
    if looked.unchanged is not None:
        return shortcut.skipped(looked.unchanged, strict, started)
    from scholarsite.pipeline import build
    from scholarsite.progress import BuildProgress

    with BuildProgress(run.quiet) as progress:
        return build(
            run.root,
            site_dir,
            strict=strict,
            overrides=run.overrides,
            workers=jobs,
            progress=progress,
            looked=looked,
        )


def shown_path(path: Path) -> str:
    """A path as the user would type it: relative inside the current folder, else absolute."""
    path = path.resolve()
    return os.path.relpath(path) if path.is_relative_to(Path.cwd().resolve()) else str(path)


def where_to_look(run: Run, site_dir: Path | None) -> str:
    """The build's last word: where the site is and how to view it."""
    from scholarsite.inputs.config import load_config
    from scholarsite.inputs.memo import MEMO_FILE, Memo

    shown = shown_path(site_dir or run.root / "site")
    kept = Memo(run.root / MEMO_FILE)  # site.yaml's settings as the build kept them: no YAML to load
    portable = run.overrides.portable or (
        load_config(run.root / "site.yaml", "site.yaml", memo=kept)[0].portable
    )
    if portable:
        index = os.path.join(shown, "index.html")
        return f"the site is in {shown}/: open {index} in a browser (it works from disk)"
    project = "" if run.root == Path.cwd().resolve() else f" --project {shown_path(run.root)}"
    return (
        f"the site is in {shown}/: `scholarsite serve{project}` shows it at http://127.0.0.1:8000/ "
        "(build with --portable to open its index.html from disk)"
    )


def run_build(run: Run, site_dir: Path | None, strict: bool, jobs: int | None, hint: bool = True) -> int:
    """Build the site; on any problem leave site/ as it was. `hint`: end with where the site
    is and how to view it."""
    try:
        result = build_or_skip(run, site_dir, strict, jobs)
    except BuildError as exc:
        print_diagnostics(exc.diagnostics, run.quiet, run.verbose)
        print(f"build failed ({tally(exc.diagnostics)}); site/ left unchanged", file=sys.stderr)
        return FAILED
    except write.WriteConflict as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    print_diagnostics(result.diagnostics, run.quiet, run.verbose)
    report = result.report
    for path in report.foreign if not run.quiet else ():
        print(f"site/{path}: note: not produced by the build (left in place)", file=sys.stderr)
    for path in [*report.written, *(f"{p} (removed)" for p in report.removed)] if run.verbose else ():
        print(f"  site/{path}")
    print(result.summary())
    if hint and not run.quiet:  # on stderr with the notes: stdout ends with the summary
        print(where_to_look(run, site_dir), file=sys.stderr)
    return OK


BUG_REPORT = (
    "this is a bug in scholarsite, not a problem with your project: please report it to its "
    "maintainers with the traceback above and the command you ran"
)


def entry() -> NoReturn:
    """The program (`scholarsite`, `python build.py`, `python -m scholarsite`): `main`, its
    output flushed, then the process ends without tearing the interpreter down (freeing a
    model's objects one by one took 10 ms of a 0.55 s build). Every file the command wrote is
    closed by then, and every process it started ends with it (`lifetime.Workers`)."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe, a closed stream
            stream.flush()
    os._exit(code)


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
    args = arguments.parse(sys.argv[1:] if argv is None else argv)
    run = Run.of(args)
    if args.command == "new":
        return run_new(args.folder)
    if args.command == "add":
        return run_add(run, args)
    if args.command == "import":
        return run_import(run, args)
    if args.command == "deploy":
        return run_deploy(run, args)
    if args.command == "link-sources":
        return run_link_sources(run.root, args)
    if args.command == "check":
        return run_check(run, args.site, args.strict, args.json, args.jobs)
    if args.command == "serve":
        from scholarsite.preview import server as serve

        return serve.run(run.root, args.host, args.port, args.base_path, args.open, run.overrides)
    if getattr(args, "publish_dir", None) is not None:
        return run_publish(run, args)
    return run_build(run, args.site, args.strict, args.jobs)


def run_add(run: Run, args: argparse.Namespace) -> int:
    """Add seeds: refuse them all on any problem; print the change summary; build unless told not."""
    from scholarsite.commands import add as addseeds

    try:
        changes, copies = addseeds.plan(run.root, args.files, args.force)
    except addseeds.Refused as exc:
        print_diagnostics(exc.problems, run.quiet, run.verbose)
        print("nothing was added", file=sys.stderr)
        return FAILED
    apply = lambda: addseeds.apply(run.root, changes, copies)  # noqa: E731
    return finish(run, args, changes.lines(), changes.as_dict(), apply)


def finish(
    run: Run, args: argparse.Namespace, lines: list[str], data: dict[str, object], apply: Callable[[], None]
) -> int:
    """`add`'s and `import`'s end: print the summary (`--json`: as JSON), then, unless
    `--dry-run`, write the files and, unless `--no-build`, build."""
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        print("\n".join(lines) or "nothing new")
    if args.dry_run:
        return OK
    apply()
    if args.no_build:
        return OK
    with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
        return run_build(replace(run, quiet=run.quiet or args.json), None, False, None)


def run_import(run: Run, args: argparse.Namespace) -> int:
    """Import an author's works: nothing is written on any problem; the summary, then the build."""
    from scholarsite.commands import importer
    from scholarsite.sources.polite import ApiUnreachable, BadDelay, LookupFailed

    try:
        mailto = mailto_of(run.root, args)
        request = importer.Request(
            args.arxiv_author,
            args.orcid,
            args.bibtex,
            args.author,
            args.api_url,
            args.openalex_url,
            mailto,
            args.openalex_key,
            dict(os.environ),
        )
        fetched, problems = importer.fetch(request)
        print_diagnostics(problems, run.quiet, run.verbose)
        into = os.path.relpath(args.into.resolve(), run.root).replace(os.sep, "/") if args.into else None
        result = importer.plan(run.root, fetched, tuple(args.exclude or ()), into)
    except BuildError as exc:
        print_diagnostics(exc.diagnostics, run.quiet, run.verbose)
        return FAILED
    except importer.Refused as exc:
        print_diagnostics(exc.problems, run.quiet, run.verbose)
        print("nothing was imported", file=sys.stderr)
        return FAILED
    except (ApiUnreachable, LookupFailed, BadDelay, LookupError) as exc:
        print(f"error: {exc}; nothing was imported", file=sys.stderr)
        return FAILED
    return finish(
        run, args, result.lines(run.verbose), result.as_dict(), lambda: importer.apply(run.root, result)
    )


def note_left_out(left_out: Sequence[str], where: str, quiet: bool) -> None:
    """A note for each file of site/ that is not published (not the build's)."""
    for path in left_out if not quiet else ():
        print(f"site/{path}: note: not produced by the build, left out of {where}", file=sys.stderr)


def run_publish(run: Run, args: argparse.Namespace) -> int:
    """Build, then copy exactly the files the build wrote into `--publish-dir`."""
    from scholarsite.commands.publish import export

    site = args.site or run.root / "site"
    try:
        ownership.claim_empty(args.publish_dir, run.root, site)
    except write.WriteConflict as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    code = run_build(run, args.site, args.strict, args.jobs, hint=False)
    if code != OK:
        return code
    try:
        exported = export(site, args.publish_dir)
    except write.WriteConflict as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    note_left_out(exported.left_out, str(args.publish_dir), run.quiet)
    print(f"{len(exported.files)} files of the site copied to {args.publish_dir}")
    return OK


def run_deploy(run: Run, args: argparse.Namespace) -> int:
    """Build (a failing build is not deployed), then publish the files it wrote to the
    gh-pages branch; outside a git repository or without the remote, say what to run."""
    from scholarsite.commands.deploy import DeployError, preflight, publish

    if args.to is not None:
        return run_deploy_s3(run, args)
    try:
        preflight(run.root, args.remote)
    except DeployError as exc:
        print(f"error: not deployed: {exc}", file=sys.stderr)
        return FAILED
    if run_build(run, args.site, args.strict, args.jobs, hint=False) != OK:
        print("not deployed: the build failed", file=sys.stderr)
        return FAILED
    site = (args.site or run.root / "site").resolve()
    try:
        exported = publish(run.root, site, args.remote, args.branch, args.message)
    except (DeployError, write.WriteConflict) as exc:
        print(f"error: not deployed: {exc}", file=sys.stderr)
        return FAILED
    note_left_out(exported.left_out, "the deployment", run.quiet)
    print(f"deployed the {len(exported.files)} files of the site to {args.remote} {args.branch}")
    return OK


def run_deploy_s3(run: Run, args: argparse.Namespace) -> int:
    """Check the bucket, build (a failing build is not deployed), then upload what changed."""
    from scholarsite.commands import s3deploy
    from scholarsite.commands.publish import published

    try:
        store = s3deploy.open_store(args.to)
    except s3deploy.S3Error as exc:
        print(f"error: not deployed: {exc}", file=sys.stderr)
        return FAILED
    if run_build(run, args.site, args.strict, args.jobs) != OK:
        print("not deployed: the build failed", file=sys.stderr)
        return FAILED
    try:
        site = published((args.site or run.root / "site").resolve())
        done = s3deploy.deploy(store, site)
    except (s3deploy.S3Error, write.WriteConflict) as exc:
        print(f"error: not deployed: {exc}", file=sys.stderr)
        return FAILED
    note_left_out(site.left_out, "the deployment", run.quiet)
    for path in done.foreign if not run.quiet else ():
        print(f"{args.to.url(path)}: note: not uploaded by scholarsite (left in place)", file=sys.stderr)
    print("\n".join(s3deploy.lines(args.to, done, run.verbose)))
    return OK


def mailto_of(root: Path, args: argparse.Namespace) -> str:
    """The address for OpenAlex's polite pool: `--mailto`, else site.yaml's `mailto`
    (BuildError when site.yaml has problems)."""
    from scholarsite.inputs.config import load_config

    if args.mailto is not None:
        return str(args.mailto)
    return load_config(root / "site.yaml", "site.yaml")[0].mailto or ""


def run_link_sources(root: Path, args: argparse.Namespace) -> int:
    """Look papers up on arXiv and OpenAlex into sources.yaml; print what was found and what
    needs review."""
    from scholarsite.inputs.sources import Unwritable
    from scholarsite.sources import client, link, openalex
    from scholarsite.sources.polite import OFFLINE_HINT

    sources = tuple(dict.fromkeys(args.source or (link.ARXIV, link.OPENALEX)))
    options = link.Options(args.max_age, args.limit, tuple(args.only or ()), sources)
    try:
        mailto = mailto_of(root, args)
    except BuildError as exc:
        print_diagnostics(exc.diagnostics)
        return FAILED
    try:
        environ = dict(os.environ)
        alex = openalex.OpenAlexClient(
            args.openalex_url, mailto=mailto, api_key=args.openalex_key, environ=environ
        )
        report = link.link_sources(root, options, client.ArxivClient(args.api_url, environ=environ), alex)
    except BuildError as exc:
        print_diagnostics(exc.diagnostics)
        print("sources.yaml has problems: nothing was looked up", file=sys.stderr)
        return FAILED
    except (link.UnknownPaper, client.BadDelay) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    except Unwritable as exc:
        print(f"error: sources.yaml is not written: {exc}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        print("interrupted; sources.yaml keeps every lookup done so far", file=sys.stderr)
        return INTERRUPTED
    for key, status in report.outcomes.items():
        if status != "found":
            print(f"  {status}: {key}")
    for key, status in report.impacts.items():
        if status != "found":
            print(f"  OpenAlex {status}: {key}")
    for source, why in report.down.items():
        kept = len(report.outcomes if source == link.ARXIV else report.impacts)
        print(
            f"error: {link.NAMES[source]} given up: {why}; sources.yaml keeps its {kept} answers so far"
            f" ({OFFLINE_HINT})",
            file=sys.stderr,
        )
    looked = report.outcomes or report.impacts
    print(report.summary() + ("; review sources.yaml, then commit it" if looked else ""))
    return FAILED if report.down else OK


def run_new(folder: Path) -> int:
    """Write a new project and say what to do next."""
    from scholarsite.commands import new as newproject

    try:
        written = newproject.create(folder)
    except newproject.NotEmpty as exc:
        print(f"error: {exc}", file=sys.stderr)
        return FAILED
    for name in written:
        print(f"  {folder / name}")
    print(
        f"a new project is in {folder} (its README.md says what is where): `cd {folder}`, add a"
        " researcher's profile with `scholarsite add PROFILE.txt`, then `scholarsite serve` to preview"
    )
    return OK
