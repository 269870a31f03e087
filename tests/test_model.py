"""The model: merging papers and authors, co-authors, histograms, subjects and years."""

from __future__ import annotations

from pathlib import Path

from scholarsite.inputs.seeds import AuthorRecord, SeedRecord, parse_seed, read_seeds
from scholarsite.model.model import MAX_TEAM, build_model

ROOT = Path(__file__).resolve().parent.parent


def record(
    title: str, year: int = 2025, abstract: str = "Abstract.", subjects=("cs.DC",), path="seeds/a.txt", line=9
) -> SeedRecord:
    """A seed record with defaults."""
    return SeedRecord("arXiv", year, title, abstract, tuple(subjects), path, line)


def author(
    name: str, *records: SeedRecord, path: str = "seeds/a.txt", claimed=None, at_least=False
) -> AuthorRecord:
    """An author record with the given records."""
    return AuthorRecord(name, path, 3, claimed, at_least, records)


def shipped_site():
    """The model of the shipped seeds."""
    parses, _ = read_seeds(
        ROOT / "seeds", "seeds", lambda data, path: parse_seed(data, path, latest_year=2027)
    )
    return build_model(p.author for p in parses)


def test_shipped_seeds_figures() -> None:
    site = shipped_site()
    assert len(site.authors) == 2
    assert site.record_count == 36
    assert len(site.papers) == 30
    assert len(site.shared_papers) == 6
    assert len(site.subjects) == 8
    assert [y.year for y in site.years] == list(range(2026, 2018, -1))


def test_shipped_shared_papers_name_both_authors_and_coauthors_count_six() -> None:
    site = shipped_site()
    titles = sorted(p.title.split(":")[0] for p in site.shared_papers)
    assert titles == ["Comet", "DisagMoE", "FLUX", "MegaScale-MoE", "TileLink", "Triton-distributed"]
    for paper in site.shared_papers:
        assert [a.name for a in paper.authors] == ["Ziheng Jiang", "Ningxin Zheng"]
        assert len(paper.provenance) == 2
    jiang, zheng = sorted(site.authors, key=lambda a: a.name, reverse=True)
    assert [(a.name, n) for a, n in jiang.coauthors] == [("Ningxin Zheng", 6)]
    assert [(a.name, n) for a, n in zheng.coauthors] == [("Ziheng Jiang", 6)]


def test_author_histograms_and_claims() -> None:
    site = shipped_site()
    jiang = next(a for a in site.authors if a.name == "Ziheng Jiang")
    assert (jiang.claimed_count, jiang.at_least, len(jiang.papers)) == (19, True, 18)
    assert dict((s.code, n) for s, n in jiang.subject_counts)["cs.DC"] == 7
    assert sum(n for _, n in jiang.year_counts) == 18
    assert jiang.year_counts[0][0] == 2026  # newest first
    assert [p.year for p in jiang.papers] == sorted((p.year for p in jiang.papers), reverse=True)


def test_subjects_carry_taxonomy_names() -> None:
    site = shipped_site()
    dc = next(s for s in site.subjects if s.code == "cs.DC")
    assert dc.name == "Distributed, Parallel, and Cluster Computing"
    assert dc.archive_name == "Computer Science"
    assert dc.slug == "cs-dc"
    iv = next(s for s in site.subjects if s.code == "eess.IV")
    assert iv.archive_name == "Electrical Engineering and Systems Science"


def test_same_title_and_year_across_seeds_merge_despite_case_and_punctuation() -> None:
    site = build_model(
        [
            author("A One", record("Comet: Overlap!"), path="seeds/a.txt"),
            author("B Two", record("comet  overlap", abstract="Other text."), path="seeds/b.txt"),
        ]
    )
    assert len(site.papers) == 1
    assert [a.name for a in site.papers[0].authors] == ["A One", "B Two"]


def test_same_title_different_year_are_two_papers() -> None:
    site = build_model([author("A", record("T", 2024), record("T", 2025))])
    assert len(site.papers) == 2
    assert len({p.slug for p in site.papers}) == 1  # same slug, different year folders
    assert {p.year for p in site.papers} == {2024, 2025}


def test_one_seed_same_title_and_year_different_abstracts_are_two_papers() -> None:
    site = build_model(
        [author("A", record("T", abstract="First."), record("T", abstract="Second.", line=17))]
    )
    assert len(site.papers) == 2
    assert len({p.slug for p in site.papers}) == 2


def test_exact_duplicate_in_one_seed_is_one_paper_with_both_records() -> None:
    site = build_model([author("A", record("T"), record("T", line=17))])
    assert len(site.papers) == 1
    assert [(p.path, p.line) for p in site.papers[0].provenance] == [("seeds/a.txt", 9), ("seeds/a.txt", 17)]


def test_two_seed_files_for_one_person_merge() -> None:
    site = build_model(
        [
            author("Ada Lovelace", record("T1"), path="seeds/a.txt", claimed=3, at_least=True),
            author("ADA LOVELACE", record("T2"), record("T1"), path="seeds/b.txt", claimed=2),
        ]
    )
    assert len(site.authors) == 1
    ada = site.authors[0]
    assert ada.seed_paths == ["seeds/a.txt", "seeds/b.txt"]
    assert (ada.claimed_count, ada.at_least) == (3, True)
    assert len(ada.papers) == 2
    assert site.record_count == 3


def test_every_record_is_on_exactly_one_paper() -> None:
    records = [record(f"T{i % 7}", 2020 + i % 3, line=i) for i in range(40)]
    site = build_model([author("A", *records[:20]), author("B", *records[20:], path="seeds/b.txt")])
    placed = [(p.path, p.line) for paper in site.papers for p in paper.provenance]
    assert sorted(placed) == sorted((r.path, r.line) for r in records)


def test_unknown_subject_is_kept_as_bare_code() -> None:
    site = build_model([author("A", record("T", subjects=("cs.XY",)))])
    subject = site.subjects[0]
    assert (subject.code, subject.name, subject.info) == ("cs.XY", "cs.XY", None)


def test_adding_a_seed_does_not_change_existing_slugs() -> None:
    base = [author("A", record("Alpha"), record("Beta", 2024))]
    before = build_model(base)
    after = build_model(base + [author("B", record("Alpha"), record("Gamma"), path="seeds/b.txt")])
    slugs_before = {(p.year, p.slug) for p in before.papers} | {a.slug for a in before.authors}
    slugs_after = {(p.year, p.slug) for p in after.papers} | {a.slug for a in after.authors}
    assert slugs_before <= slugs_after


def test_a_paper_of_more_than_max_team_authors_makes_no_coauthors() -> None:
    """A collaboration of thousands is not a co-authorship: counting it would cost the square of
    its size. A team of MAX_TEAM still does; either way the paper lists every author."""

    def team(size: int, title: str) -> list[AuthorRecord]:
        return [
            author(f"Member {title} {n:04d}", record(title), path=f"seeds/{title}-{n:04d}.txt")
            for n in range(size)
        ]

    site = build_model([*team(MAX_TEAM, "Small"), *team(MAX_TEAM + 1, "Large")])
    small, large = (next(p for p in site.papers if p.title == title) for title in ("Small", "Large"))
    assert len(small.authors) == MAX_TEAM and len(large.authors) == MAX_TEAM + 1
    assert all(len(a.coauthors) == MAX_TEAM - 1 for a in small.authors)
    assert all(a.coauthors == [] for a in large.authors)
