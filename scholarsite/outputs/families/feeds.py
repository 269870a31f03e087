"""Atom feeds (RFC 4287) for the collection, each subject, each author (with `author_feeds`:
a file an author, so not by default) and of each "What's new" listing
(`scholarsite.outputs.newest`).

Feeds need absolute URLs, so they exist only when `base_url` is configured. Records carry
a year but no date, so an entry's `updated` is the first instant of its year (deterministic,
and never later than the truth), unless sources.yaml knows the original's dates: then the entry
has them (`published`, `updated`) and links the arXiv abstract page. An entry's summary is the
start of its abstract (`SUMMARY_LIMIT` characters): the abstract is stored once, on the paper's
page, not again in the feed of each of its authors and subjects (issue 27).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from functools import partial

from scholarsite.inputs.config import Config
from scholarsite.inputs.digests import code_version, key_of
from scholarsite.model import urls
from scholarsite.model.cards import Card, Cards
from scholarsite.model.model import Paper
from scholarsite.outputs import newest as whats_new
from scholarsite.outputs.registry import Output
from scholarsite.outputs.seo import clip
from scholarsite.outputs.sitedata import SiteData

ATOM = "http://www.w3.org/2005/Atom"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
SUMMARY_LIMIT = 300  # characters of the abstract in an entry's summary


def timestamp(year: int) -> str:
    """RFC 3339 timestamp of the start of a year."""
    return f"{year:04d}-01-01T00:00:00Z"


def day_timestamp(date: str) -> str:
    """RFC 3339 timestamp of the start of an ISO date."""
    return f"{date}T00:00:00Z"


def updated(card: Card) -> str:
    """When a paper last changed: its original's last version, else its first, else its year."""
    original = card["original"] or {}
    date = original.get("updated") or original.get("published")
    return day_timestamp(date) if date else timestamp(card["year"])


def text_element(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    """A child element with text."""
    element = ET.SubElement(parent, tag, attributes)
    element.text = text
    return element


def entry(feed: ET.Element, card: Card, base_url: str) -> None:
    """One paper as an Atom entry."""
    element = ET.SubElement(feed, "entry")
    url = urls.absolute(base_url, card["path"])
    text_element(element, "id", url)
    text_element(element, "title", card["title_plain"])
    text_element(element, "updated", updated(card))
    original = card["original"]
    if original and original["published"]:
        text_element(element, "published", day_timestamp(original["published"]))
    ET.SubElement(element, "link", {"rel": "alternate", "type": "text/html", "href": url})
    related = original and (original["abs_url"] or original["doi_url"] or original["url"])
    if related:  # the original: on arXiv, at its DOI, or at its own address
        ET.SubElement(element, "link", {"rel": "related", "type": "text/html", "href": related})
    for author in card["all_authors"]:
        person = ET.SubElement(element, "author")
        text_element(person, "name", author["name"])
        if author["path"]:
            text_element(person, "uri", urls.absolute(base_url, author["path"]))
    for subject in card["subjects"]:
        ET.SubElement(element, "category", {"term": subject["code"], "label": subject["name"]})
    if card["abstract_plain"]:
        text_element(element, "summary", clip(card["abstract_plain"], SUMMARY_LIMIT))


def atom_feed(title: str, page: str, papers: list[Paper], cards: Cards, config: Config) -> bytes:
    """An Atom feed of the newest papers of a page (author, subject or the whole collection)."""
    assert config.base_url, "feeds need base_url"
    base = config.base_url
    feed = ET.Element("feed", {"xmlns": ATOM, XML_LANG: config.language})
    feed_url = urls.absolute(base, urls.beside(page, "feed.xml"))
    text_element(feed, "id", feed_url)
    text_element(feed, "title", title)
    newest = papers[: config.feed_entries]
    text_element(feed, "updated", max((updated(cards.paper(p)) for p in newest), default=timestamp(1970)))
    ET.SubElement(feed, "link", {"rel": "self", "type": "application/atom+xml", "href": feed_url})
    ET.SubElement(feed, "link", {"rel": "alternate", "type": "text/html", "href": urls.absolute(base, page)})
    text_element(ET.SubElement(feed, "author"), "name", config.title)
    text_element(feed, "generator", "scholarsite")
    for paper in newest:
        entry(feed, cards.paper(paper), base)
    ET.indent(feed)
    body = ET.tostring(feed, encoding="utf-8", xml_declaration=False)
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + body + b"\n"


def outputs(data: SiteData) -> Iterator[Output]:
    """feed.xml at the root, beside every subject page and What's new listing, and (with
    `author_feeds`) beside every author page; only with base_url."""
    config, cards = data.config, data.cards
    if not config.base_url:
        return
    feeds = [(config.title, urls.HOME, data.site.papers)]
    if config.author_feeds:  # a file an author: only when asked for (issue 27)
        feeds += [
            (f"{a.name} · {config.title}", cards.author(a)["path"], a.papers) for a in data.site.authors
        ]
    feeds += [
        (f"{s.name} ({s.code}) · {config.title}", cards.subject(s)["path"], s.papers)
        for s in data.site.subjects
    ]
    feeds += whats_new.feeds(data)
    settings = (config.base_url, config.language, config.title, config.feed_entries)
    for title, page, papers in feeds:
        newest = papers[: config.feed_entries]
        shown = [cards.papers.digest_of(p.key) for p in newest]
        key = key_of(code_version(), title, page, settings, shown)
        yield Output(
            urls.beside(page, "feed.xml"), key, partial(atom_feed, title, page, newest, cards, config)
        )
