"""An ORCID iD in an author's page (`content/authors/<slug>.md`), added to its front matter.

A page without front matter gets one; a page that has an `orcid` already keeps it (a different
one is reported, never overwritten); a missing page is created with the iD alone.
"""

from __future__ import annotations

from scholarsite.errors import BuildError
from scholarsite.inputs.content import FRONT_MATTER_RE, split_front_matter


def with_orcid(text: str | None, orcid: str, shown: str) -> tuple[str | None, str]:
    """The page's new text (None: leave it as it is) and what was done, for the summary."""
    line = f'orcid: "{orcid}"'
    if text is None:
        return f"---\n{line}\n---\n", f"{shown}: new author page with ORCID {orcid}"
    newline = "\r\n" if "\r\n" in text else "\n"
    try:
        settings, _ = split_front_matter(text.replace("\r\n", "\n"), shown)
    except BuildError:
        return None, f"{shown}: its front matter is not valid YAML; ORCID {orcid} not added"
    found = next((value for key, value, _ in settings if key == "orcid"), None)
    if found == orcid:
        return None, ""
    if found is not None:
        return None, f"{shown} has the ORCID {found}, not {orcid}: left as it is"
    if FRONT_MATTER_RE.match(text.replace("\r\n", "\n")):
        opening, rest = text.split("\n", 1)
        return f"{opening}\n{line}{newline}{rest}", f"{shown}: ORCID {orcid} added"
    return f"---{newline}{line}{newline}---{newline}{text}", f"{shown}: ORCID {orcid} added"
