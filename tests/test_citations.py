"""Citations say where they were read (`model.citations`): every "@ X" in the rule tables of
`fetch` and `kraft`, in the docs and in the code's docstrings names a release tag of apache/kafka
from the list kept in the repository, or a known commit with a remark that it is not a tag. No
clone of Kafka is needed; where $REPLCHECK_KAFKA_GIT names clones, every cited method is also
looked up at its place."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from model import citations

ROOT = Path(__file__).resolve().parents[1]
TABLES = citations.tables()


@pytest.mark.parametrize("model", sorted(TABLES))
def test_every_row_cites_a_method_at_a_place_and_every_place_is_a_tag_or_a_commit_said_not_to_be(model):
    for row in TABLES[model]:
        assert citations.citations(row.sources), row.key
        assert citations.problems(row.sources) == [], row.key
        for _, _, place in citations.citations(row.sources):
            assert place in citations.RELEASE_TAGS or re.fullmatch(r"[0-9a-f]{7,40}", place), (row.key, place)


def test_a_place_no_tag_was_read_at_is_refused():
    wrong = citations.problems("`A.b` @ 4.0.0; `C.d` @ 3.8.0, 3.9.0; `E.f` @ trunk; `G.h` @ 1eb7644; "
                               "`I.j` @ 1eb7644 (trunk); `K.l` @ 1234abc (not a tag); `M.n` @ 3.8.0 and later")
    assert wrong == ["@ 4.0.0: neither a release tag read nor a known commit",
                     "@ 3.9.0: neither a release tag read nor a known commit",
                     "@ trunk: neither a release tag read nor a known commit",
                     "@ 1eb7644: a commit, not followed by a remark that says it is not a tag",
                     "@ 1eb7644: a commit, not followed by a remark that says it is not a tag",
                     "@ 1234abc: neither a release tag read nor a known commit",
                     "@ 3.8.0 and later: neither a release tag read nor a known commit"]
    assert citations.problems("`A.b` @ 2.0.0 (no entry), @ 2.1.0 (`x`, KAFKA-7415); `C.d` @ 3.8.0, 53364c5 "
                              "(4.0 branch, not a tag)") == []


def test_a_citation_is_read_at_every_place_of_its_part_and_remarks_name_none():
    assert citations.citations("`A.b`, `C.d` @ 2.0.0 (`E.f`, 2.1.1), @ 2.1.0; `G.h` @ e6d2421 (trunk, not a tag); "
                               "`I.j` in a copy of unknown commit") == [
        ("A", "b", "2.0.0"), ("A", "b", "2.1.0"), ("C", "d", "2.0.0"), ("C", "d", "2.1.0"), ("G", "h", "e6d2421")]


PROSE = re.compile(r"(?<![\w`@])@ ([0-9a-f][\w.\-]*\w|trunk)(\s*\([^)]*\))?")
"""A citation's place in prose: "@ 3.4.0", "@ 1eb7644 (trunk, not a tag)"."""


def _prose_files():
    """The docs (but for design notes, which keep the notation they define), the code and the
    tests (but for this one, whose wrong citations are meant)."""
    docs = [p for p in (ROOT / "docs").rglob("*.md") if "design" not in p.relative_to(ROOT).parts]
    tests = [p for p in (ROOT / "tests").glob("*.py") if p != Path(__file__).resolve()]
    return [ROOT / "README.md", *docs, *(ROOT / "model").rglob("*.py"), *tests]


def test_every_citation_in_the_docs_and_docstrings_names_a_tag_or_a_commit_said_not_to_be():
    wrong = []
    for path in _prose_files():
        for match in PROSE.finditer(path.read_text()):
            place = match.group(1)
            remark = " ".join(re.sub(r'"\s*"', "", match.group(2) or "").split())  # across lines and "..." "..."
            if place in citations.RELEASE_TAGS:
                continue
            if citations.commit_of(place) is None or "not a tag" not in remark:
                wrong.append(f"{path.relative_to(ROOT)}: {match.group(0)}")
    assert wrong == []


@pytest.mark.skipif(not citations.clones_named(), reason="$REPLCHECK_KAFKA_GIT names no clone of apache/kafka")
@pytest.mark.parametrize("model", sorted(TABLES))
def test_a_kafka_clone_has_every_cited_method_at_its_place(model):
    """Every cited method is in its class's file at each place named, in the first clone that
    holds the place (fetch 134 of 134, kraft 128 of 128 with trunk e6d2421 at hand, when this
    test was written); every tag cited is in some clone, where a commit may not be (53364c5 was
    in no clone read, and was read file by file)."""
    clones = citations.clones_named()
    assert citations.missing(clones, TABLES[model]) == []
    assert [place for place in citations.unchecked(clones, TABLES[model]) if place in citations.RELEASE_TAGS] == []
