"""The plan of one page: what it reads, and how its context is made from that."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scholarsite.model import urls

Spec = Callable[..., "PagePlan"]  # (path, template, title, crumbs, **reads) -> a page's plan


@dataclass(frozen=True)
class PagePlan:
    """One HTML page to render: what it reads, and how its context is made from that."""

    path: str
    template: str
    reads: dict[str, Any]
    make: Callable[..., dict[str, Any]]  # make(**reads) -> the template's context

    def context(self) -> dict[str, Any]:
        """The page's full context (computed now, dropped after rendering)."""
        return self.make(**self.reads)


def home_trail(*trail: tuple[str, str]) -> list[tuple[str, str]]:
    """Breadcrumbs starting at home."""
    return [("Home", urls.HOME), *trail]
