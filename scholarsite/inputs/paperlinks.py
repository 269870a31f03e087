"""The `links:` and `type:` a maintainer adds to a `sources.yaml` entry::

    papers:
      2025/comet fine grained overlapping for mixture of experts:
        status: found
        type: conference paper           # one of the seed format's types (records.KINDS)
        links:
          - {kind: code, url: https://github.com/bytedance/flux}
          - {kind: slides, url: https://example.org/comet.pdf, label: MLSys talk}

A link's kind is one of LINK_KINDS, its URL an http or https address with a host (a page links
to it, so nothing else may run there), its label optional text. At most MAX_LINKS a paper.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from scholarsite.inputs.openalex_part import WEB_URL_RE
from scholarsite.inputs.records import KINDS
from scholarsite.inputs.setting import excerpt

LINK_KINDS = ("code", "slides", "video", "data", "poster", "other")
MAX_LINKS = 20
MAX_LABEL = 200
MAX_URL = 2_000


@dataclass(frozen=True)
class Link:
    """A link a maintainer added to a paper: what it leads to, where, and what it says."""

    kind: str
    url: str
    label: str = ""

    @property
    def text(self) -> str:
        """What the link says: its label, else its kind ("Code", "Slides"; "Link" for other)."""
        return self.label or ("Link" if self.kind == "other" else self.kind.capitalize())

    def as_data(self) -> dict[str, str]:
        """The link as YAML data, without an empty label."""
        return {key: value for key, value in vars(self).items() if value}


def links_of(value: Any) -> tuple[tuple[Link, ...], str | None]:
    """The `links:` of an entry, or the reason they are none."""
    if value is None:
        return (), None
    if not isinstance(value, list) or len(value) > MAX_LINKS:
        return (), f"'links' must be a list of at most {MAX_LINKS} links"
    links = []
    for number, item in enumerate(value, start=1):
        link, problem = link_of(item)
        if link is None:
            return (), f"link {number}: {problem}"
        links.append(link)
    return tuple(links), None


def link_of(item: Any) -> tuple[Link | None, str | None]:
    """One link from YAML data, or the reason it is none."""
    if not isinstance(item, dict) or set(item) - {"kind", "url", "label"}:
        return None, "expected kind, url and an optional label"
    kind, url, label = item.get("kind"), item.get("url"), item.get("label", "")
    if kind not in LINK_KINDS:
        return None, f"'kind' must be one of {', '.join(LINK_KINDS)}, found {excerpt(kind)}"
    if not (isinstance(url, str) and len(url) <= MAX_URL and web_address(url.strip())):
        return None, f"'url' must be an http or https address, found {excerpt(url)}"
    if not isinstance(label, str) or len(label) > MAX_LABEL or "\n" in label:
        return None, f"'label' must be one line of at most {MAX_LABEL} characters, found {excerpt(label)}"
    return Link(kind, url.strip(), " ".join(label.split())), None


def web_address(url: str) -> bool:
    """Whether `url` is an http or https address with a host (no `javascript:`, no `//x`)."""
    if not WEB_URL_RE.fullmatch(url):
        return False
    try:
        return bool(urlsplit(url).hostname)
    except ValueError:
        return False


def type_problem(value: str) -> str | None:
    """Why an entry's `type:` is refused, or None."""
    if value and value not in KINDS:
        return f"'type' must be one of {', '.join(KINDS)}, found {excerpt(value)}"
    return None
