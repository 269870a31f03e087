"""Every output of the site: the families, in order, then the files of `static/`."""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Iterator

from scholarsite.errors import BuildError, Diagnostic, error
from scholarsite.outputs.families import exports, feeds, hosting, pages, search
from scholarsite.outputs.families.pages import outputs as pages_family
from scholarsite.outputs.registry import CONTROL_RE, Bundle, Family, Produced, check_path
from scholarsite.outputs.sitedata import SiteData

STATIC_HINT = "rename or move it in static/"

SITE_FAMILIES: tuple[Family, ...] = (
    pages.outputs,
    hosting.assets,
    hosting.outputs,
    hosting.redirects,
    hosting.moved_map,
    exports.citation_files,
    exports.data_files,
    feeds.outputs,
)
SEARCH_FAMILIES: tuple[Family, ...] = (search.outputs,)


def in_search(path: str) -> bool:
    """Whether a site path belongs to a search bundle (synced last, and on its own in serve)."""
    return path.startswith(search.FOLDER + "/")


def outputs(data: SiteData, families: Iterable[Family]) -> Iterable[Produced]:
    """Every output of the given families, lazily, in family order."""
    return itertools.chain.from_iterable(family(data) for family in families)


def site_outputs(
    data: SiteData, pages: Iterable[Produced] | None = None, carried: Collection[str] = ()
) -> Iterator[Produced]:
    """The outputs of SITE_FAMILIES, lazily, then the files of `static/`; BuildError, before
    anything is written, when a static file is where the build puts its own (see
    `static_problems`). With `pages`, those are the pages planned, and `carried` the paths of
    the pages kept as they are."""
    made: list[str] = [search.FOLDER + "/", *carried]  # a folder the search index owns whole
    families = SITE_FAMILIES if pages is None else [f for f in SITE_FAMILIES if f is not pages_family]
    rest = outputs(data, families)
    for item in itertools.chain(pages or (), rest):
        made.append(item.folder + "/" if isinstance(item, Bundle) else item.path)
        yield item
    problems = name_problems(data.assets) + static_problems(data.static, made)
    if problems:
        raise BuildError(problems)
    yield from hosting.static(data)


def shown(path: str) -> str:
    """`path` with its control characters as `\\xNN`: a name with a newline names one file."""
    return CONTROL_RE.sub(lambda match: f"\\x{ord(match.group()):02x}", path)


def unfit_name(path: str) -> str | None:
    """Why no site path may be `path` (a control character, a backslash...), or None."""
    try:
        check_path(path)
    except ValueError as exc:
        return f"the site cannot hold that name ({str(exc).rpartition(': ')[2]})"
    return None


def name_problems(assets: Iterable[str]) -> list[Diagnostic]:
    """An error for each file of `assets/` whose name no site path may have."""
    return [
        error(shown(path), 0, f"cannot be copied to site/{shown(path)}: {unfit}", "rename it in assets/")
        for path in assets
        if (unfit := unfit_name(path))
    ]


def static_problems(static: Iterable[str], made: Iterable[str]) -> list[Diagnostic]:
    """An error for each file of `static/` (by site path) that is where the build writes a
    file or a folder, is inside a folder a bundle owns whole ("x/" in `made`), or has a name
    no site path may have."""
    static = list(static)
    if not static:
        return []
    made = list(made)
    files = {path for path in made if not path.endswith("/")}
    folders = {path[:i] for path in made for i, char in enumerate(path) if char == "/"} | {"."}
    whole = tuple(path for path in made if path.endswith("/"))
    problems = []
    for path in static:
        if clash := static_clash(path, files, folders, whole):
            message = f"cannot be copied to site/{shown(path)}: {clash}"
            problems.append(error(f"static/{shown(path)}", 0, message, STATIC_HINT))
    return problems


def static_clash(path: str, files: set[str], folders: set[str], whole: tuple[str, ...]) -> str | None:
    """Why the static file for site path `path` cannot be copied, or None."""
    if unfit := unfit_name(path):
        return unfit
    if path in files:
        return "the build writes that file itself"
    if path in folders or path + "/" in whole:
        return "the build writes a folder there"
    if path.startswith(whole):
        return f"site/{path.split('/')[0]}/ is made whole by the build"
    return None
