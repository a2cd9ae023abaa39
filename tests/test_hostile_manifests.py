"""Hostile manifests (issue #28): `replcheck verify MANIFEST`, given manifests mutated by
hypothesis, gets the documented answer and nothing else.

The contract is `hostile.py`'s: exit 0 (every expectation met) or 1 (a surprise) for a manifest
that `checker.ci.manifest.load` accepts, exit 2 with one `Error: ...` line exactly when it refuses
one, never a traceback; the manifest is left as it was and nothing else is left in its folder
but the JUnit report asked for, which parses as XML. The manifests are the shipped one's
entries with their bounds made small, and small valid ones, so that each search takes a
fraction of a second (a mutation that makes one large is skipped); Spark is never started.
"""

from __future__ import annotations

import copy
import datetime
import math
import re
import tempfile
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from checker.ci.manifest import KEYS, ManifestError, load
from hostile import assert_documented_answer, assert_one_error_line, hostile, invoke, leftovers, no_spark  # noqa: F401
from invariants.registry import invariants_for
from model.registry import MODELS

pytestmark = pytest.mark.usefixtures("no_spark")

HISTORY = Path(__file__).resolve().parents[1] / "examples" / "kafka-history.toml"

SMALL = {"spec": {"replicas": 2}, "fetch": {"replicas": 2, "log-size": 1, "max-records": 1, "max-epoch": 1}}
"""The bounds that make the shipped manifest's searches small (the rest of its bounds kept)."""

LARGEST = {"two-phase": {"rms": 3}, "spec": {"replicas": 3, "log_size": 2, "max_records": 2, "max_epoch": 2},
           "fetch": {"replicas": 2, "log_size": 1, "max_records": 1, "max_epoch": 1}}
"""The largest bounds a search of these tests may have (each takes well under a second)."""

VALID = [
    {"model": "two-phase", "bounds": {"rms": 2}, "property": "consistent", "outcome": "holds",
     "note": "textbook two-phase commit"},
    {"model": "spec", "variant": "kip320", "bounds": {"replicas": 2, "max-records": 1}, "property": "weak-isr",
     "outcome": "holds"},
    {"model": "fetch", "variant": "kip320", "bounds": {**SMALL["fetch"], "acks": "1"}, "property": "acked-survives",
     "outcome": "violated", "steps": 5},
    {"model": "fetch", "variant": "kip320+hw-advance=strict-min-isr", "bounds": {**SMALL["fetch"], "acks": "1"},
     "property": "acked-survives", "outcome": "violated", "steps": 5, "not-judged": "a rule switched: no release"},
]
"""Small expectations that hold as stated (one whose trace is not judged, saying why)."""

NAMES = sorted({*MODELS, *KEYS, "expect", *(v for kind in MODELS.values() for v in kind.variants),
                *(p.name for kind in MODELS.values() for p in kind.params),
                *(i for name in MODELS for i in invariants_for(name)),
                "holds", "violated", "reachable", "unreachable", "on", "off", "all", "async"})
"""Every name a manifest may use somewhere: keys, models, variants, bounds, properties, outcomes."""


def entries() -> list[dict]:
    """The shipped manifest's entries with small bounds, and the small valid ones."""
    shipped = tomllib.loads(HISTORY.read_text())["expect"]
    return [dict(e, bounds={**e.get("bounds", {}), **SMALL[e["model"]]}) for e in shipped] + VALID


ENTRIES = entries()


class Raw(str):
    """TOML text written into a manifest as it is: what a Python value cannot stand for (a
    number of thousands of digits) or what no TOML value is (brackets thousands deep)."""

    def __repr__(self) -> str:
        """Its start and length (hypothesis shows the strategies' values)."""
        return f"Raw({str(self)[:12]!r}..., {len(self):,} characters)" if len(self) > 24 else f"Raw({str(self)!r})"


RAW_VALUES = [Raw("9" * 5000), Raw("-" + "9" * 5000), Raw("0x" + "f" * 5000), Raw("1" + "0" * 400), Raw("1e999"),
              Raw("[" * 3000 + "]" * 3000), Raw("{ a = " * 40 + "1" + " }" * 40), Raw("[" * 16 + "]" * 16),
              Raw("nan"), Raw("-inf"), Raw("1979-05-27T07:32:00Z"), Raw('"' + "n" * 1001 + '"'),
              Raw('"\\u001b[31mRED\\u0000"'), Raw('"""multi\nline"""'), Raw("'''\u001b]0;title\u0007'''")]

RAW_KEYS = [Raw("k" * 100_000), Raw("a" + ".a" * 16), Raw("a" + ".a" * 5000), Raw('"\\u001b[2J"'), Raw('""'),
            Raw("model.model")]


def keys():
    """A key: a known name, any text (control characters included), or one of RAW_KEYS."""
    return st.one_of(st.sampled_from(NAMES), st.text(max_size=8), st.sampled_from(RAW_KEYS))


def toml_values(max_leaves: int = 8):
    """Any TOML value: booleans, whole numbers (of thousands of digits too), floats (inf and nan
    too), strings, dates and times, arrays and inline tables, and RAW_VALUES."""
    scalars = st.one_of(st.booleans(), st.integers(), st.sampled_from([0, -1, 1, 3, 11, 10_000, 10_001, 2**63]),
                        st.floats(), st.text(max_size=12), st.sampled_from(NAMES),
                        st.datetimes(timezones=st.sampled_from([None, datetime.timezone.utc])), st.dates(),
                        st.times(), st.sampled_from(RAW_VALUES))
    return st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(keys(), inner, max_size=4)),
                        max_leaves=max_leaves)


# --- writing TOML -----------------------------------------------------------------------------

def toml_key(key: str) -> str:
    """`key` as TOML writes it: bare when it can be, else a basic string."""
    return key if isinstance(key, Raw) or re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (control characters escaped)."""
    escaped = "".join("\\" + c if c in '"\\' else f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c
                      for c in text)
    return f'"{escaped}"'


def toml(value) -> str:
    """`value` as TOML text."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    return "{ " + ", ".join(f"{toml_key(k)} = {toml(v)}" for k, v in value.items()) + " }"


def manifest_text(doc: dict) -> str:
    """The document as a manifest: its other top-level keys first, then each entry of `expect`
    as an [[expect]] table (when `expect` is a list of tables; else as a plain value)."""
    tables = doc.get("expect") if isinstance(doc.get("expect"), list) else None
    if tables is not None and not all(isinstance(e, dict) for e in tables):
        tables = None
    lines = [f"{toml_key(k)} = {toml(v)}" for k, v in doc.items() if not (k == "expect" and tables is not None)]
    for entry in tables or []:
        lines += ["", "[[expect]]", *(f"{toml_key(k)} = {toml(v)}" for k, v in entry.items())]
    return "\n".join(lines) + "\n"


# --- mutations --------------------------------------------------------------------------------

def places(doc: dict) -> list[tuple]:
    """Where a value can change: the `expect` list, each entry, each of its keys, each bound."""
    found = [("expect",)] if "expect" in doc else []
    expect = doc.get("expect")
    for i, entry in enumerate(expect if isinstance(expect, list) else []):
        found.append(("expect", i))
        for key, value in (entry.items() if isinstance(entry, dict) else ()):
            found.append(("expect", i, key))
            found += [("expect", i, key, bound) for bound in (value if isinstance(value, dict) else ())]
    return found


def parent(doc: dict, place: tuple):
    """The list or table holding the value at `place`."""
    for key in place[:-1]:
        doc = doc[key]
    return doc


def replace_value(draw, doc: dict) -> dict:
    """A value (an entry, a key's value, a bound, all the entries) replaced by any TOML value."""
    place = draw(st.sampled_from(places(doc) or [("expect",)]))
    parent(doc, place)[place[-1]] = draw(toml_values())
    return doc


def delete_value(draw, doc: dict) -> dict:
    """An entry, a key or a bound deleted (or all the entries)."""
    if places(doc):
        place = draw(st.sampled_from(places(doc)))
        del parent(doc, place)[place[-1]]
    return doc


def rename_key(draw, doc: dict) -> dict:
    """A key or a bound renamed: to another name the manifest knows, or to any text."""
    named = [p for p in places(doc) if isinstance(p[-1], str)]
    if named:
        place = draw(st.sampled_from(named))
        table = parent(doc, place)
        table[draw(keys())] = table.pop(place[-1])
    return doc


def add_key(draw, doc: dict) -> dict:
    """A key of any text, with any value, added at the top level, to an entry or to its bounds."""
    tables = [()] + [p for p in places(doc) if isinstance(parent(doc, p)[p[-1]], dict)]
    place = draw(st.sampled_from(tables))
    table = parent(doc, place)[place[-1]] if place else doc
    table[draw(keys())] = draw(toml_values(max_leaves=3))
    return doc


def restate(draw, doc: dict) -> dict:
    """An entry's outcome, steps or note changed, as a manifest may state them wrongly: the
    manifest stays valid, and a note may hold any text (an escape sequence, a NUL)."""
    tables = [e for e in doc.get("expect", []) if isinstance(e, dict)] if isinstance(doc.get("expect"), list) else []
    if tables:
        entry = draw(st.sampled_from(tables))
        key = draw(st.sampled_from(["outcome", "steps", "note"]))
        values = {"outcome": st.sampled_from(["holds", "violated", "reachable", "unreachable"]),
                  "steps": st.integers(0, 20),
                  "note": st.one_of(st.text(), st.sampled_from(["\x1b[31mRED", "\x00", "a\nb", "\u202e"]))}
        entry[key] = draw(values[key])
    return doc


MUTATIONS = [replace_value, delete_value, rename_key, add_key, restate]


@st.composite
def mutated_manifest(draw, mutations=MUTATIONS) -> bytes:
    """One to three entries, after none to three of the `mutations`, as manifest bytes."""
    doc = {"expect": copy.deepcopy(draw(st.lists(st.sampled_from(ENTRIES), min_size=1, max_size=3)))}
    for _ in range(draw(st.integers(0, 3))):
        doc = draw(st.sampled_from(mutations))(draw, doc)
    return manifest_text(doc).encode()


@st.composite
def mangled(draw, data: bytes) -> bytes:
    """The manifest `data` cut short, or with bytes spliced in: invalid UTF-8, NUL, an escape,
    TOML punctuation, a number of thousands of digits, a run of brackets, a dotted key of
    thousands of parts, a comment past the size limit."""
    where = draw(st.integers(0, len(data)))
    if draw(st.booleans()):
        return data[:where]
    insert = draw(st.one_of(
        st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x1b[31m", b"\r", b"\xef\xbb\xbf", b"[", b"]",
                         b"{", b"}", b'"', b"'", b'"""', b"'''", b"=", b",", b".", b"#", b"\n", b"[[expect]]\n",
                         b"9" * 5000, b"[" * 100_000, b"{ a = " * 20_000, b"a." * 5000,
                         b"\n#" + b"x" * 2**20 + b"\n"]),
        st.binary(min_size=1, max_size=8)))
    cut = draw(st.integers(0, min(4, len(data) - where)))
    return data[:where] + insert + data[where + cut:]


def hostile_manifest():
    """A manifest mutated, its bytes mangled, or both; or valid, with any outcome, steps and note."""
    return st.one_of(mutated_manifest(), mutated_manifest(), mutated_manifest().flatmap(mangled),
                     mutated_manifest([restate]))


def small(groups) -> bool:
    """Every search of the manifest is small (its bounds within LARGEST)."""
    return all(value <= LARGEST[g.model.name].get(key, value)
               for g in groups for key, value in dict(g.model.parameters()).items() if type(value) is int)


def accepted(path: Path):
    """The manifest's searches, as `checker.ci.manifest.load` groups them, or None when it refuses it."""
    try:
        return load(path)
    except ManifestError:
        return None


@hostile(100)
@given(content=hostile_manifest(), junit=st.booleans())
def test_verify_answers_a_hostile_manifest_as_documented(content, junit):
    with tempfile.TemporaryDirectory() as folder:
        path, report = Path(folder, "manifest.toml"), Path(folder, "report.xml")
        path.write_bytes(content)
        groups = accepted(path)
        assume(groups is None or small(groups))
        result = invoke(["verify", str(path), *(["--junit", str(report)] if junit else [])])
        assert_documented_answer(result, {0, 1, 2})
        assert (result.exit_code == 2) == (groups is None)
        if groups is None:
            assert_one_error_line(result)
        assert all(c.isprintable() or c == "\n" for c in result.output), result.output[-2000:]
        assert path.read_bytes() == content
        written = junit and groups is not None
        assert leftovers(folder, {path.name} | ({report.name} if written else set())) == set()
        if written:
            ET.parse(report)


@pytest.mark.parametrize("key, value", [
    ("not-judged", 1), ("not-judged", True), ("not-judged", ""), ("not-judged", "  "), ("not-judged", ["why"]),
    ("not-judged", {"why": "because"}), ("not-judged", datetime.date(2024, 1, 1)), ("not-judged", "n" * 1001),
    ("allow-deviations", ["offset-out-of-range"]), ("allow-deviations", "offset-out-of-range"),
    ("allow-deviations", {"offset-out-of-range": 1}), ("allow-deviations", {"offset-out-of-range": ""}),
    ("allow-deviations", {"offset-out-of-range": ["why"]}), ("allow-deviations", {"\x1b[2J": "why"}),
    ("allow-deviations", {"offset-out-of-range": "n" * 1001}),
])
def test_a_reason_that_is_no_text_is_one_line(tmp_path, key, value):
    """`not-judged` and `allow-deviations` say why in words: any other value, on an entry whose
    trace is audited, is refused in one line naming the entry's line, with nothing searched."""
    path = tmp_path / "manifest.toml"
    path.write_text(manifest_text({"expect": [{**VALID[2], key: value}]}))
    result = invoke(["verify", str(path)])
    assert_one_error_line(result)
    assert result.stderr.startswith(f"Error: {path} line 2: {key}")  # line 1 is blank
    assert all(c.isprintable() or c == "\n" for c in result.output), result.output
