"""The geometry of an author's ego-network figure, laid out at build time (no script runs).

The author sits at the left; the co-authors stand on the right half of an ellipse, one row
each, top to bottom in the order given (grouped by community). Every label is on a row of its
own and outside the ellipse, every line inside it, so no label overlaps another or a line, at
any number of co-authors; the figure grows in height instead. Lines from the author are
thicker the more papers they share; the pairs of co-authors who also wrote together are joined
inside. The figure is `WIDTH` units wide, drawn about as many pixels wide on a phone, so its
`FONT`-unit labels stay readable at 390 px; a label too long for its row is cut with '…' (the
table beside the figure has every name in full).

The figure costs little in the page: the lines between co-authors are one path, the lines from
the author one path a stroke width (widths in steps of `SPOKE_STEP`), the nodes one group a
community (the group sets the colour).
"""

from __future__ import annotations

import math
import unicodedata
from itertools import groupby
from typing import Any

from scholarsite.model.cards import Card

WIDTH = 360
FONT = 12  # the labels' size in the stylesheet (`.ego-label`)
ROW = 20  # vertical distance between two co-authors
RADIUS_X = 150  # the ellipse's horizontal half-axis
EGO_X = 18  # the author's node, from the left
TOP = 26  # room above the first row (the author's name when there are few rows)
LABEL_GAP = 10  # from a node to its label
MARGIN = 6
BOLD = 1.1  # how much wider the author's name is, in bold
WIDEST_SPOKE = 4.0  # stroke width of the line to the co-author with the most shared papers
SPOKE_STEP = 0.5  # stroke widths are multiples of this (one path each)


def char_width(char: str) -> float:
    """An estimate of a character's width at FONT: wide (East Asian) characters one em, others
    0.6 em (more than most Latin letters take in the system fonts)."""
    return FONT * (1.0 if unicodedata.east_asian_width(char) in "WF" else 0.6)


def text_width(text: str) -> float:
    """An estimate of the width of `text` at FONT."""
    return sum(map(char_width, text))


def fit(text: str, budget: float) -> str:
    """`text`, or its longest beginning that fits `budget` with '…' after it."""
    widths = [char_width(c) for c in text]
    if sum(widths) <= budget:
        return text
    room, used, cut = budget - char_width("…"), 0.0, 0
    while cut < len(text) and used + widths[cut] <= room:
        used += widths[cut]
        cut += 1
    return text[:cut].rstrip() + "…"


def rounded(value: float) -> int:
    """Coordinates in whole units of the 360-wide figure (short, and the same on every machine)."""
    return round(value)


def spoke_width(shared: int, most: int) -> float:
    """The stroke width of the line to a co-author of `shared` papers (1 to WIDEST_SPOKE, in
    steps of SPOKE_STEP)."""
    width = 1 + (WIDEST_SPOKE - 1) * shared / most
    return round(SPOKE_STEP * round(width / SPOKE_STEP), 1)


def path(segments: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """An SVG path drawing the straight segments between the given points."""
    return "".join(f"M{a['x']} {a['y']}L{b['x']} {b['y']}" for a, b in segments)


def spokes(centre: dict[str, Any], nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines from the author to the co-authors, one path per stroke width."""
    widths = sorted({node["spoke"] for node in nodes})
    return [
        {"width": width, "path": path([(centre, node) for node in nodes if node["spoke"] == width])}
        for width in widths
    ]


def layout(ego: Card) -> dict[str, Any]:
    """Positions, labels and lines of the figure of `ego` (an ego-network card, see
    `coauthors.CoauthorViews.ego`), and the rows of the table that carries the same data."""
    nodes = ego["nodes"]
    half_span = (len(nodes) - 1) * ROW / 2
    radius_y = half_span + ROW
    centre_y = TOP + radius_y
    most = max(node["shared"] for node in nodes)
    placed = []
    for index, node in enumerate(nodes):
        y = centre_y - half_span + index * ROW
        x = EGO_X + RADIUS_X * math.sqrt(1 - ((y - centre_y) / radius_y) ** 2)
        count = f" {node['shared']}"
        budget = WIDTH - MARGIN - (x + LABEL_GAP) - text_width(count)
        placed.append(
            {
                "x": rounded(x),
                "y": rounded(y),
                "label_x": rounded(x + LABEL_GAP),
                "label_y": rounded(y + FONT * 0.35),
                "label": fit(node["author"]["name"], budget),
                "count": count,
                "colour": node["community"]["colour"],
                "spoke": spoke_width(node["shared"], most),
            }
        )
    name = fit(ego["name"], (WIDTH - 2 * MARGIN) / BOLD)
    label_y = centre_y - 14
    partners: list[list[int]] = [[] for _ in nodes]
    for i, j, _ in ego["links"]:
        partners[i].append(j)
        partners[j].append(i)
    centre = {"x": EGO_X, "y": rounded(centre_y)}
    return {
        "width": WIDTH,
        "height": rounded(2 * centre_y),
        "ego": {
            **centre,
            "label_x": MARGIN,
            "label_y": rounded(label_y),
            "label": name,
            "box": {  # behind the name, which crosses the lines to the first co-authors
                "x": MARGIN - 3,
                "y": rounded(label_y - FONT),
                "width": rounded(text_width(name) * BOLD + 6),
                "height": FONT + 5,
            },
        },
        "nodes": placed,
        "groups": [{"colour": c, "nodes": list(ns)} for c, ns in groupby(placed, lambda n: n["colour"])],
        "links": path([(placed[i], placed[j]) for i, j, _ in ego["links"]]),
        "spokes": spokes(centre, placed),
        "communities": list({node["community"]["slug"]: node["community"] for node in nodes}.values()),
        "rows": [
            {**node, "partners": [nodes[k]["author"] for k in sorted(partners[index])]}
            for index, node in enumerate(nodes)
        ],
    }
