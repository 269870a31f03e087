"""The geometry of a paper's "citations per year" figure, laid out at build time (no script runs).

One bar a year from the first year with citations to the last (at most the last `YEARS_SHOWN`;
years without any are empty slots, so gaps show), `WIDTH` units wide at most; each bar's height
is its count over the largest count. The first and last years are written under the bars and
the largest count above its bar; the figure's title says every count in words.
"""

from __future__ import annotations

from typing import Any

from scholarsite.model.cards import Card

WIDTH = 360
HEIGHT = 120  # of the bars' area
SLOT = 28  # the widest a year's slot grows (few years)
GAP = 0.2  # of a slot, between bars
TOP = 16  # room for the largest count's label
BOTTOM = 18  # room for the year labels
YEARS_SHOWN = 30  # the latest years drawn; earlier counts are left out of the figure


def layout(counts: list[Card]) -> dict[str, Any]:
    """Bars for `counts` ([{year, count}], by year): their boxes, the labels and the size."""
    last = max(item["year"] for item in counts)
    by_year = {item["year"]: item["count"] for item in counts if item["year"] > last - YEARS_SHOWN}
    first = min(by_year)
    years = list(range(first, last + 1))
    slot = min(SLOT, WIDTH / len(years))
    most = max(by_year.values()) or 1
    bars = []
    for index, year in enumerate(years):
        count = by_year.get(year, 0)
        height = round(HEIGHT * count / most, 1)
        bars.append(
            {
                "year": year,
                "count": count,
                "x": round(index * slot + slot * GAP / 2, 1),
                "y": round(TOP + HEIGHT - height, 1),
                "width": round(slot * (1 - GAP), 1),
                "height": height,
            }
        )
    width = round(slot * len(years), 1)
    peak = max(bars, key=lambda bar: (bar["count"], -bar["year"]))
    return {
        "width": width,
        "height": TOP + HEIGHT + BOTTOM,
        "bars": bars,
        "peak": {"x": round(peak["x"] + peak["width"] / 2, 1), "y": peak["y"] - 4, "count": peak["count"]},
        "axis_y": TOP + HEIGHT + BOTTOM - 4,
        "first": first,
        "last": last,
        "total": sum(by_year.values()),
    }
