"""Page metadata: descriptions, canonical URLs and schema.org JSON-LD as plain dicts."""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup

from scholarsite.inputs.config import Config
from scholarsite.inputs.content import Page
from scholarsite.model import urls
from scholarsite.model.cards import Card
from scholarsite.model.model import Author
from scholarsite.outputs.citations import IMPORT_SOURCES  # seed sources that name no publisher

DESCRIPTION_LIMIT = 160
SCHEMA = "https://schema.org"
LISTS = ("identifier", "sameAs")  # JSON-LD properties several parts of a page add to
SCHEMA_TYPES = {  # schema.org's type of a paper, by its type (else ScholarlyArticle)
    "PhD thesis": "Thesis",
    "master's thesis": "Thesis",
    "book": "Book",
    "chapter": "Chapter",
    "report": "Report",
    "dataset": "Dataset",
}


def clip(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """Whitespace collapsed and cut at a word boundary to at most `limit` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rsplit(" ", 1)[0].rstrip(",;:.") + "…"


def author_description(author: Author) -> str:
    """One sentence about an author for meta descriptions."""
    subjects = ", ".join(s.name for s, _ in author.subject_counts[:3])
    noun = "paper" if len(author.papers) == 1 else "papers"
    topics = f" in {subjects}" if subjects else ""
    return f"{author.name}: {len(author.papers)} {noun}{topics}."


def json_script(data: Any) -> Markup:
    """JSON for a `<script>` element: `<`, `>` and `&` escaped so no tag can close it."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    safe = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return Markup(safe)


def identifiers(original: Card) -> dict[str, Any]:
    """`identifier` (arXiv id, DOI as PropertyValue) and `sameAs` (abstract page, DOI link) of a
    paper's original."""
    ids = [
        ("arXiv", original["arxiv_id"], original["abs_url"]),
        ("DOI", original["doi"], original["doi_url"]),
    ]
    known = [(name, value, url) for name, value, url in ids if value]
    data: dict[str, Any] = {
        "identifier": [
            {"@type": "PropertyValue", "propertyID": name, "value": value} for name, value, _ in known
        ],
        "sameAs": [url for _, _, url in known] + ([original["url"]] if original.get("url") else []),
    }
    if original.get("journal_ref"):
        data["isPartOf"] = {"@type": "CreativeWork", "name": original["journal_ref"]}
    return data


def cited_by(count: int, name: str, checked: str) -> dict[str, Any]:
    """An InteractionCounter of citations (schema.org has no citation count of its own)."""
    data: dict[str, Any] = {"@type": "InteractionCounter", "name": name, "userInteractionCount": count}
    return {**data, "endTime": checked} if checked else data


def paper_impact(impact: Card) -> dict[str, Any]:
    """What OpenAlex said of a paper: its cited-by count, venue, open-access copy and id (the
    `identifier` and `sameAs` lists to add to those of its original)."""
    data: dict[str, Any] = {}
    if impact["openalex_id"]:
        openalex = {"@type": "PropertyValue", "propertyID": "OpenAlex", "value": impact["openalex_id"]}
        data.update(identifier=[openalex], sameAs=[impact["openalex_url"]])
    if impact["cited_by"] is not None:
        data["interactionStatistic"] = cited_by(impact["cited_by"], "Cited by (OpenAlex)", impact["checked"])
    if impact["venue"]:
        data["isPartOf"] = {"@type": "CreativeWork", "name": impact["venue"]}
    if impact["oa_url"]:
        data["isAccessibleForFree"] = True
        data["encoding"] = {"@type": "MediaObject", "contentUrl": impact["oa_url"]}
    return data


class Metadata:
    """JSON-LD and absolute URLs; URLs are absolute only when `base_url` is configured."""

    def __init__(self, config: Config):
        self.config = config

    def absolute(self, path: str) -> str | None:
        """Absolute URL of an output path, or None without base_url."""
        return urls.absolute(self.config.base_url, path) if self.config.base_url else None

    def link(self, from_page: str, to_path: str) -> str:
        """Absolute URL when possible, else the relative link."""
        return self.absolute(to_path) or urls.relative(from_page, to_path, self.config.portable)

    def collection(self, path: str, title: str, description: str) -> dict[str, Any]:
        """CollectionPage for index-like pages."""
        data = {"@context": SCHEMA, "@type": "CollectionPage", "name": title, "description": description}
        return self.with_url(data, path)

    def with_url(self, data: dict[str, Any], path: str) -> dict[str, Any]:
        """Add `url` when an absolute URL is known."""
        url = self.absolute(path)
        return {**data, "url": url} if url else data

    def breadcrumbs(self, crumbs: list[tuple[str, str]]) -> dict[str, Any]:
        """BreadcrumbList for the trail of a page; the last crumb is the page itself, which
        needs no `item` (the page's own URL)."""
        page = crumbs[-1][1]
        items: list[dict[str, Any]] = [
            {"@type": "ListItem", "position": n, "name": name, "item": self.link(page, path)}
            for n, (name, path) in enumerate(crumbs[:-1], start=1)
        ]
        items.append({"@type": "ListItem", "position": len(crumbs), "name": crumbs[-1][0]})
        return {"@context": SCHEMA, "@type": "BreadcrumbList", "itemListElement": items}

    def person(
        self, author: Author, profile: Page | None, path: str, impact: Card | None = None
    ) -> dict[str, Any]:
        """Person for an author page (with the citations of their papers in this collection,
        when OpenAlex found some)."""
        data: dict[str, Any] = {"@context": SCHEMA, "@type": "Person", "name": author.name}
        if impact:
            name = f"Citations of the {impact['counted']} papers in this collection found by OpenAlex"
            data["interactionStatistic"] = cited_by(impact["citations"], name, impact["checked_to"])
        meta = profile.meta if profile else {}
        if meta.get("affiliation"):
            data["affiliation"] = {"@type": "Organization", "name": meta["affiliation"]}
        same_as = [
            meta[k] if k != "orcid" else f"https://orcid.org/{meta[k]}"
            for k in ("homepage", "orcid")
            if meta.get(k)
        ]
        same_as += meta.get("profiles", [])
        if same_as:
            data["sameAs"] = same_as
        if meta.get("aliases"):
            data["alternateName"] = list(meta["aliases"])
        return self.with_url(data, path)

    def person_ref(self, author: Card, path: str) -> dict[str, Any]:
        """A paper's author as a Person, with the author's page when the collection has one."""
        data = {"@type": "Person", "name": author["name"]}
        return {**data, "url": self.link(path, author["path"])} if author["path"] else data

    def article(self, card: Card, path: str, impact: Card | None = None) -> dict[str, Any]:
        """ScholarlyArticle for a paper page; with its original's identifiers, links and date
        and what OpenAlex said of it, when sources.yaml knows them. No `abstract`: the page
        shows it, which is where Google Scholar reads it (and the citation files carry it)."""
        original = card["original"] or {}
        data: dict[str, Any] = {
            "@context": SCHEMA,
            "@type": SCHEMA_TYPES.get(original.get("kind", ""), "ScholarlyArticle"),
            "headline": clip(card["title_plain"], 110),
            "datePublished": original.get("date") or str(card["year"]),
            "author": [self.person_ref(a, path) for a in card["all_authors"]],
            "about": [
                {"@type": "Thing", "name": s["name"], "identifier": s["code"]} for s in card["subjects"]
            ],
        }
        if data["headline"] != card["title_plain"]:  # the whole title, when the headline is clipped
            data["name"] = card["title_plain"]
        if card["source"].casefold() not in IMPORT_SOURCES:
            data["publisher"] = {"@type": "Organization", "name": card["source"]}
        if original:
            data.update(identifiers(original))
        for name, value in (paper_impact(impact) if impact else {}).items():
            data[name] = [*data.get(name, []), *value] if name in LISTS else value
        return self.with_url(data, path)
