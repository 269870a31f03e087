"""The command line's grammar: commands, options with their defaults, and helpful mistakes.

`build` is the default command (`python build.py --strict`). An unknown command gets a
"did you mean"; `--project` is accepted before or after the command. Options are never
abbreviated (`--sit` is an error, not `--site`), and numbers are checked where they are read,
so a mistake is a usage error (exit 2) naming the option.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarsite.inputs.config import setting_problem
from scholarsite.sources import API_URL, MAX_AGE_DAYS, OPENALEX_URL

# In the order of the story: start a project, bring seeds in, link them, check, build, look, publish.
COMMANDS = ("new", "add", "import", "link-sources", "check", "build", "serve", "deploy")
TAKES_VALUE = {
    *("--project", "--site", "--publish-dir", "--jobs", "--base-url", "--host", "--port", "--base-path"),
    *("--remote", "--branch", "--message", "--to"),
    *("--max-age", "--limit", "--only", "--api-url", "--source", "--openalex-url", "--mailto"),
    "--openalex-key",
    *("--arxiv-author", "--orcid", "--bibtex", "--author", "--exclude", "--into"),
}
USAGE = 2
MAX_PORT = 65535


def base_url(value: str) -> str:
    """`--base-url`'s value, checked as `site.yaml`'s `base_url` is (empty: no override)."""
    if value.strip() and (problem := setting_problem("base_url", value.strip())):
        raise argparse.ArgumentTypeError(problem)
    return value


def s3_target(value: str) -> Any:
    """`deploy --to`'s value, an `s3://BUCKET/PREFIX` (read only when given: boto3 loads slowly)."""
    from scholarsite.commands.s3deploy import Target

    try:
        return Target.parse(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class ShowVersion(argparse.Action):
    """--version: print "scholarsite X.Y.Z" and exit (the version looked up only then)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        import scholarsite

        print(f"{parser.prog} {scholarsite.__version__}")
        parser.exit()


class DefaultsShown(argparse.RawDescriptionHelpFormatter):
    """Help that names each option's default, unless it is off, unset or already said; the
    description and examples keep their lines."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text:
            return text
        return f"{text} (default: %(default)s)"


@dataclass(frozen=True)
class About:
    """What `--help` says of a command: one line (also in the list of commands), an example."""

    line: str
    examples: tuple[str, ...]

    def epilog(self) -> str:
        """The examples, as `--help` ends with them."""
        return "examples:\n" + "\n".join(f"  {example}" for example in self.examples)


ABOUT = {
    "new": About(
        "start a project in a new (or empty) folder: site.yaml, an example seed, content/, a Pages workflow",
        ("scholarsite new lab && cd lab",),
    ),
    "add": About(
        "check new seed files, copy them into seeds/, print what they change, then build",
        ("scholarsite add ~/profiles/ada-lovelace.txt", "scholarsite add --dry-run ~/profiles/"),
    ),
    "import": About(
        "write an author's seed from arXiv, an ORCID iD (through OpenAlex) or a BibTeX file, "
        "print what it changes, then build",
        (
            'scholarsite import --arxiv-author "Ziheng Jiang"',
            "scholarsite import --orcid 0000-0002-1825-0097",
            'scholarsite import --bibtex refs.bib --author "Ziheng Jiang"',
        ),
    ),
    "link-sources": About(
        "look the papers up on arXiv and OpenAlex into sources.yaml (review it, then commit it)",
        ("scholarsite link-sources --limit 20", "scholarsite link-sources --source openalex --max-age 7"),
    ),
    "check": About(
        "find every problem a build would find (pages are rendered in memory); write nothing",
        ("scholarsite check", "scholarsite check --strict --verbose"),
    ),
    "build": About(
        "build site/ from seeds/, content/ and site.yaml (the default command)",
        ("scholarsite build", "scholarsite build --portable", "scholarsite build --publish-dir /tmp/publish"),
    ),
    "serve": About(
        "build, serve on 127.0.0.1 and rebuild (and reload the browser) on every change",
        ("scholarsite serve", "scholarsite serve --port 8001 --base-path /scholarsite/ --open"),
    ),
    "deploy": About(
        "build, then publish the files it wrote to a gh-pages branch (no Actions needed), "
        "or with --to to an S3-compatible bucket (only what changed)",
        (
            "scholarsite deploy",
            "scholarsite deploy --remote upstream --branch gh-pages",
            "scholarsite deploy --to s3://my-bucket/site",
        ),
    ),
}
assert tuple(ABOUT) == COMMANDS


def whole_number(low: int, high: int | None, expected: str) -> Callable[[str], int]:
    """An argparse type: an integer from `low` to `high` (no upper bound when None); anything
    else is 'argument --flag: expected EXPECTED, not 'TEXT''."""

    def convert(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            number = None
        if number is None or number < low or (high is not None and number > high):
            raise argparse.ArgumentTypeError(f"expected {expected}, not {text!r}")
        return number

    return convert


PORT = whole_number(0, MAX_PORT, f"a port from 1 to {MAX_PORT}, or 0 for any free port")
PROCESSES = whole_number(1, None, "a number of processes, 1 or more")


class StrictParser(argparse.ArgumentParser):
    """An argument parser that never takes an abbreviation for an option (its subcommands'
    parsers are StrictParsers too)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{**kwargs, "allow_abbrev": False})


def parser() -> argparse.ArgumentParser:
    """The argument parser for all commands, in the order of the story, each with a line on
    what it does and examples, and every default shown in `--help`."""
    project = StrictParser(add_help=False)
    project.add_argument(
        "--project", type=Path, default=argparse.SUPPRESS, help="project folder (default: current folder)"
    )
    project.add_argument(
        "--quiet", action="store_true", default=argparse.SUPPRESS, help="only problems: no progress, no notes"
    )
    project.add_argument(
        "--verbose",
        action="store_true",
        default=argparse.SUPPRESS,
        help="also list every file written or removed, and every note (not only their count)",
    )
    main = StrictParser(
        prog="scholarsite",
        parents=[project],
        formatter_class=DefaultsShown,
        description="Build a static site of publication records from seed files (default command: build).",
        epilog="a first site: scholarsite new lab && cd lab && scholarsite serve\n"
        "each command's --help says more, with examples",
    )
    main.add_argument("--version", action=ShowVersion, help="show the version and exit")
    commands = main.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    addressed = StrictParser(add_help=False, parents=[project])
    addressed.add_argument(
        "--base-url",
        type=base_url,
        default=None,
        metavar="URL",
        help="the site's public address, overriding site.yaml's base_url (also: SCHOLARSITE_BASE_URL)",
    )
    shared = StrictParser(add_help=False, parents=[addressed])
    shared.add_argument("--site", type=Path, default=None, help="output folder (default: PROJECT/site)")
    shared.add_argument("--strict", action="store_true", help="fail on warnings too")
    shared.add_argument(
        "--jobs",
        type=PROCESSES,
        default=None,
        metavar="N",
        help="rendering processes (default: one per core)",
    )

    def command(name: str, *parents: argparse.ArgumentParser) -> argparse.ArgumentParser:
        about = ABOUT[name]
        return commands.add_parser(
            name,
            parents=list(parents),
            formatter_class=DefaultsShown,
            help=about.line,
            description=about.line[0].upper() + about.line[1:] + ".",
            epilog=about.epilog(),
        )

    new = command("new")
    new.add_argument("folder", type=Path, help="the folder to create (new, or empty)")
    add = command("add", project)
    add.add_argument("files", type=Path, nargs="+", metavar="FILE|DIR", help="seed files, or folders of them")
    add.add_argument("--dry-run", action="store_true", help="print what would change; change nothing")
    add.add_argument("--no-build", action="store_true", help="copy the seeds but do not build")
    add.add_argument(
        "--force", action="store_true", help="add a second file for an author, or under a taken name"
    )
    add.add_argument("--json", action="store_true", help="print the change summary as JSON")
    add_import_arguments(command("import", project, apis()))
    add_link_arguments(command("link-sources", project, apis()))
    check = command("check", shared)
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    build = command("build", shared)
    build.add_argument(
        "--portable",
        action="store_true",
        help="link pages as folder/index.html: the site works opened from disk (or portable: true)",
    )
    build.add_argument(
        "--publish-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="then copy exactly the files the build wrote (no bookkeeping, no stray files) into "
        "DIR, a new or empty folder, to upload",
    )
    serve = command("serve", addressed)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=PORT, default=8000, help="port to listen on (0: any free port)")
    serve.add_argument("--open", action="store_true", help="open a browser")
    serve.add_argument("--base-path", default="/", help="serve under a sub-path, e.g. /scholarsite/")
    deploy = command("deploy", shared)
    deploy.add_argument(
        "--to",
        type=s3_target,
        default=None,
        metavar="s3://BUCKET/PREFIX",
        help="upload to this bucket instead (AWS S3, R2, MinIO...; endpoint and credentials from the "
        "AWS environment: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_PROFILE); only changed files",
    )
    deploy.add_argument("--remote", default="origin", help="the git remote to push to (gh-pages)")
    deploy.add_argument("--branch", default="gh-pages", help="the branch GitHub Pages serves")
    deploy.add_argument("--message", default="Publish the site", help="the commit message")
    return main


def add_link_arguments(link: argparse.ArgumentParser) -> None:
    """`link-sources`' options: which papers are looked up, on which source."""
    link.add_argument(
        "--max-age",
        type=int,
        default=MAX_AGE_DAYS,
        metavar="DAYS",
        help="look up again entries older than this",
    )
    link.add_argument(
        "--limit", type=int, default=None, metavar="N", help="at most N lookups per source (default: all due)"
    )
    link.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="KEY",
        help="look up this paper key, due or not (repeatable)",
    )
    link.add_argument(
        "--source",
        action="append",
        choices=("arxiv", "openalex"),
        default=None,
        help="ask only this source (repeatable; default: arXiv, then OpenAlex for the papers it identifies)",
    )


def apis() -> argparse.ArgumentParser:
    """The options naming the APIs `link-sources` and `import` ask."""
    options = StrictParser(add_help=False)
    options.add_argument(
        "--api-url",
        default=None,
        metavar="URL",
        help=f"the arXiv API (also: SCHOLARSITE_ARXIV_API; default: {API_URL})",
    )
    options.add_argument(
        "--openalex-url",
        default=None,
        metavar="URL",
        help=f"the OpenAlex API (also: SCHOLARSITE_OPENALEX_API; default: {OPENALEX_URL})",
    )
    options.add_argument(
        "--mailto",
        default=None,
        metavar="EMAIL",
        help="your address for OpenAlex's polite pool (default: site.yaml's mailto)",
    )
    options.add_argument(
        "--openalex-key",
        default=None,
        metavar="KEY",
        help="your OpenAlex API key, free at openalex.org (also: OPENALEX_API_KEY; sent, never written)",
    )
    return options


def orcid(text: str) -> str:
    """`--orcid`'s value: an ORCID iD (or its orcid.org address), its checksum verified."""
    from scholarsite.importing.from_orcid import BadOrcid, orcid_id

    try:
        return orcid_id(text)
    except BadOrcid as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_import_arguments(importer: argparse.ArgumentParser) -> None:
    """`import`'s source (one of three) and options."""
    source = importer.add_mutually_exclusive_group(required=True)
    source.add_argument("--arxiv-author", metavar="NAME", help="the papers arXiv lists under this name")
    source.add_argument("--orcid", type=orcid, metavar="ID", help="the works of this ORCID iD, from OpenAlex")
    source.add_argument("--bibtex", type=Path, metavar="FILE", help="the entries of this BibTeX file")
    importer.add_argument(
        "--author",
        metavar="NAME",
        help="the author's name in the seed (needed with --bibtex; default with --orcid: OpenAlex's)",
    )
    importer.add_argument(
        "--exclude",
        action="append",
        default=None,
        metavar="ID",
        help="leave out this work: an arXiv id, DOI, OpenAlex id or BibTeX key (repeatable)",
    )
    importer.add_argument(
        "--into", type=Path, metavar="SEED", help="the seed file to update, when several list the name"
    )
    importer.add_argument("--dry-run", action="store_true", help="print what would change; change nothing")
    importer.add_argument("--no-build", action="store_true", help="write the seed but do not build")
    importer.add_argument("--json", action="store_true", help="print the change summary as JSON")


def first_word(argv: Sequence[str]) -> str | None:
    """The first argument that is neither an option nor an option's value."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word.startswith("-"):
            skip = word in TAKES_VALUE
        else:
            return word
    return None


def refuse_unknown_option(words: list[str]) -> None:
    """Exit 2 naming the option when the word taken for a command follows an option nobody
    knows (`--sit x` is 'unrecognized arguments: --sit x', not "unknown command 'x'")."""
    whole = parser()
    extra = whole.parse_known_args(["build", *words])[1]
    if extra and extra[0].startswith("-"):
        whole.error(f"unrecognized arguments: {' '.join(extra)}")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The parsed arguments; `build` when no command is named; exit 2 with a suggestion for
    an unknown command."""
    words = list(argv)
    command = first_word(words)
    if command is None:
        if not any(word in ("-h", "--help", "--version") for word in words):
            words = ["build", *words]
    elif command not in COMMANDS:
        refuse_unknown_option(words)
        close = difflib.get_close_matches(command, COMMANDS, n=1, cutoff=0.4)
        hint = f"; did you mean '{close[0]}'?" if close else f"; commands: {', '.join(COMMANDS)}"
        print(f"scholarsite: unknown command '{command}'{hint}", file=sys.stderr)
        raise SystemExit(USAGE)
    return parser().parse_args(words)
