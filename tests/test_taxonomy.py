"""Tests for the arXiv taxonomy lookup."""

import json
from importlib import resources

import pytest

from scholarsite.inputs.taxonomy import SubjectInfo, is_plausible_code, lookup

CS = ("cs", "Computer Science", "grp_cs", "Computer Science")


@pytest.mark.parametrize(
    ("code", "name", "archive"),
    [
        ("cs.DC", "Distributed, Parallel, and Cluster Computing", CS),
        ("cs.LG", "Machine Learning", CS),
        ("cs.CL", "Computation and Language", CS),
        ("cs.CV", "Computer Vision and Pattern Recognition", CS),
        ("cs.PL", "Programming Languages", CS),
        ("cs.AI", "Artificial Intelligence", CS),
        (
            "eess.IV",
            "Image and Video Processing",
            (
                "eess",
                "Electrical Engineering and Systems Science",
                "grp_eess",
                "Electrical Engineering and Systems Science",
            ),
        ),
        ("quant-ph", "Quantum Physics", ("quant-ph", "Quantum Physics", "grp_physics", "Physics")),
        (
            "cond-mat.mes-hall",
            "Mesoscale and Nanoscale Physics",
            ("cond-mat", "Condensed Matter", "grp_physics", "Physics"),
        ),
    ],
)
def test_known_codes(code: str, name: str, archive: tuple[str, str, str, str]) -> None:
    assert lookup(code) == SubjectInfo(code, name, *archive)


@pytest.mark.parametrize("code", ["cs.XX", "hep-foo", "", "CS.DC", " cs.DC", "test.soft"])
def test_unknown_codes(code: str) -> None:
    assert lookup(code) is None


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("cs.NA", "math.NA"),
        ("math.MP", "math-ph"),
        ("cmp-lg", "cs.CL"),
        ("bayes-an", "physics.data-an"),
    ],
)
def test_aliases_resolve(alias: str, canonical: str) -> None:
    info = lookup(alias)
    assert info is not None and info == lookup(canonical) and info.code == canonical


def test_every_alias_target_is_known() -> None:
    table = resources.files("scholarsite.inputs") / "data" / "arxiv_taxonomy.json"
    data = json.loads(table.read_text("utf-8"))
    assert data["source"]["package"] == "arxiv-base"
    assert all(lookup(alias) is not None for alias in data["aliases"])
    assert all(is_plausible_code(code) for code in data["categories"])


@pytest.mark.parametrize(
    "text", ["cs.DC", "quant-ph", "cond-mat.mes-hall", "math-ph", "physics.optics", "q-bio.NC"]
)
def test_plausible_codes(text: str) -> None:
    assert is_plausible_code(text)


@pytest.mark.parametrize(
    "text",
    ["hello world", "cs.DC↗", "", "<script>", "cs", "cs.DC\n", "cs.D", "cs.dc.x", "-ph", "cs.DC "],
)
def test_implausible_codes(text: str) -> None:
    assert not is_plausible_code(text)
