"""The documentation's generated parts, made by the docs build itself (an MkDocs hook, named in
mkdocs.yml): the `site.yaml` reference from the settings' own definitions
(`scholarsite.inputs.config`) and the command reference from the argument parser
(`scholarsite.arguments`), so neither can drift from the code.

A page asks for a part with a marker line, `<!-- generated: settings -->` or
`<!-- generated: commands -->`; an unknown marker fails the build.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import MISSING, fields
from typing import Any

from scholarsite import arguments
from scholarsite.inputs.config import MEANINGS, Config, expectation

MARKER_RE = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)
HELP_WIDTH = 100  # columns of the help shown, whatever the terminal building the docs


def shown_default(value: Any) -> str:
    """A default as written in site.yaml: `false`, `100`, `Publication records`; none: unset."""
    if value is None or value is MISSING:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def cell(text: str) -> str:
    """Text for a Markdown table cell (a `|` would end it)."""
    return text.replace("|", "\\|")


def settings_reference() -> str:
    """A table of every `site.yaml` key: its default, what it accepts, what it does."""
    rows = ["| key | default | accepts | what it does |", "|---|---|---|---|"]
    for field in fields(Config):
        rows.append(
            f"| `{field.name}` | {cell(shown_default(field.default))} | {cell(expectation(field.name))} "
            f"| {cell(MEANINGS[field.name])} |"
        )
    return "\n".join(rows) + "\n"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parsers of a parser's commands, in the order `--help` lists them."""
    for action in parser._actions:  # argparse keeps its commands in a private list
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def help_text(parser: argparse.ArgumentParser) -> str:
    """`--help` as a terminal of HELP_WIDTH columns shows it."""
    parser.formatter_class = lambda prog: arguments.DefaultsShown(prog, width=HELP_WIDTH)
    return parser.format_help().rstrip()


def commands_reference() -> str:
    """Each command's `--help`, under a heading, in the order of the story."""
    main = arguments.parser()
    parts = ["## `scholarsite`", "", "```text", help_text(main), "```", ""]
    for name, command in subcommands(main).items():
        parts += [f"## `scholarsite {name}`", "", arguments.ABOUT[name].line + ".", ""]
        parts += ["```text", help_text(command), "```", ""]
    return "\n".join(parts)


GENERATORS = {"settings": settings_reference, "commands": commands_reference}


def generated(markdown: str) -> str:
    """`markdown` with each marker replaced by the part it names (KeyError for an unknown one)."""
    return MARKER_RE.sub(lambda match: GENERATORS[match[1]](), markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """MkDocs hook: fill in the generated parts of a page."""
    return generated(markdown)
