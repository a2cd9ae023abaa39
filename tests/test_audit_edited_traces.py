"""`replcheck trace audit` on traces edited by hand: real fetch and kraft traces (found by searches
here, and the fetch traces saved before fixes in tests/data/findings) with two steps' actions
swapped (the states kept), relabelled to another variant, or with a step's action or state
forged. Whatever the edit, the audit answers with no traceback: exit 0 only for a trace that is a
behaviour of its model under the variant it names, exit 1 naming the step where it rests on a
deviation (for a trace the model no longer takes, the first step it does not take, with the steps
it claims a fix removed really none the model takes, and the others a behaviour of the rule set it
names), or exit 2 with one line."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from conftest import run_cli
from model.registry import MODELS, build_model
from traces.store import TraceFileError, load_trace

FINDINGS = Path(__file__).parent / "data" / "findings"

SEARCHES = [
    # (check's arguments, the trace's file name): fetch from 2.0 (two of Kafka's Jira stories among them) to 4.0,
    # and two kraft stories
    (["--model", "fetch", "--variant", "kip279", "--invariant", "strong-isr"], "fetch-kip279-strong-isr.json"),
    (["--model", "fetch", "--variant", "kip279", "--max-fencings", "1", "--invariant", "strong-isr"],
     "fetch-kip279-strong-isr.json"),
    (["--model", "fetch", "--variant", "kip320", "--max-disk-losses", "1", "--invariant", "isr-join-caught-up"],
     "fetch-kip320-isr-join-caught-up.json"),
    (["--model", "fetch", "--variant", "kip966", "--max-disk-losses", "1", "--invariant", "committed-survives"],
     "fetch-kip966-committed-survives.json"),
    (["--model", "kraft", "--variant", "kip595", "--replicas", "1", "--max-records", "1", "--max-elections", "2",
      "--max-restarts", "1", "--invariant", "leader-has-acked-values"], "kraft-kip595-leader-has-acked-values.json"),
    (["--model", "kraft", "--variant", "kip853", "--max-records", "1", "--max-elections", "1", "--max-disk-losses", "1",
      "--invariant", "no-illegal-state"], "kraft-kip853-no-illegal-state.json"),
]
SAVED_BEFORE_FIXES = ["kafka-6361-kip101-answer-before-leading.json", "kafka-6880-kip279-request-epoch.json",
                      "kip966-fencing-last-leader-with-elr.json"]


@pytest.fixture(scope="module")
def real_traces(tmp_path_factory) -> list[dict]:
    """The real traces edited below, as JSON documents: one from each search, then those saved
    before fixes."""
    docs = []
    for i, (arguments, name) in enumerate(SEARCHES):
        where = tmp_path_factory.mktemp(f"search{i}")
        result = run_cli("check", *arguments, "--trace-dir", str(where))
        assert result.exit_code == 1, result.output
        docs.append(json.loads((where / name).read_text()))
    return docs + [json.loads((FINDINGS / name).read_text()) for name in SAVED_BEFORE_FIXES]


def _swapped(doc: dict, at: int) -> dict:
    """`doc` with the actions of steps at and at+1 (0-based) swapped, the states kept."""
    edited = copy.deepcopy(doc)
    steps = edited["steps"]
    steps[at]["action"], steps[at + 1]["action"] = steps[at + 1]["action"], steps[at]["action"]
    return edited


def _relabelled(doc: dict, variant: str) -> dict:
    """`doc` named as a trace of `variant`, with that variant's choice for every rule it names."""
    edited = copy.deepcopy(doc)
    edited["variant"] = variant
    book = MODELS[doc["model"]].rules
    if "rules" in edited and variant in book.presets:
        edited["rules"] = {rule: book.presets[variant][rule] for rule in edited["rules"] if rule in book.presets[variant]}
    return edited


def _forged_action(doc: dict, at: int) -> dict:
    """`doc` with step at's (0-based) first argument moved to the next broker or voter (past the
    last where there is one only), or with no argument, made a step of another kind."""
    edited = copy.deepcopy(doc)
    action = edited["steps"][at]["action"]
    replicas = doc["bounds"]["replicas"]
    if len(action) == 1:
        action[0] = "Crash"
    elif doc["model"] == "kraft":  # voters 1..n
        action[1] = action[1] % replicas + 1 if replicas > 1 else action[1] + 1
    else:  # brokers 0..n-1
        action[1] = (action[1] + 1) % replicas
    return edited


def _forged_state(doc: dict, at: int) -> dict:
    """`doc` with one number of step at's (0-based) state changed by one: the first number met in
    the state after a broker's or voter's first field."""
    edited = copy.deepcopy(doc)
    pending = [edited["steps"][at]["state"]]
    while pending:
        item = pending.pop(0)
        values = list(item.items()) if isinstance(item, dict) else list(enumerate(item))
        for key, value in values:
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0 and key not in ("id",):
                item[key] = value + 1 if value == 0 else value - 1
                return edited
            if isinstance(value, (dict, list)):
                pending.append(value)
    return edited


def edited_traces(docs: list[dict]) -> list[tuple[str, dict]]:
    """Each real trace edited several ways, named for what was done to which trace."""
    edits = []
    for n, doc in enumerate(docs):
        label = f"{n}:{doc['model']}-{doc['variant']}"
        last = len(doc["steps"]) - 2
        for at in sorted({0, last // 2, last}):
            edits.append((f"{label} swap {at + 1},{at + 2}", _swapped(doc, at)))
        presets = list(MODELS[doc["model"]].rules.presets)
        at = presets.index(doc["variant"])
        for other in {presets[at - 1], presets[(at + 1) % len(presets)]}:
            edits.append((f"{label} as {other}", _relabelled(doc, other)))
        for at in sorted({0, last // 2 + 1}):
            edits.append((f"{label} action {at + 1}", _forged_action(doc, at)))
            edits.append((f"{label} state {at + 1}", _forged_state(doc, at)))
    return edits


def _judged(path: Path):
    """(trace, model, the first step the model does not take or None) as the file names them;
    None when the file is no trace of its model at all."""
    try:
        trace, model = load_trace(path, replay=False)
    except TraceFileError:
        return None
    return trace, model, trace.first_unreplayed(model)


def _check_before_fix_claims(trace, model, audit: dict) -> None:
    """The replay an exit 1 claims for a trace the model does not take is true: the steps a fix
    removed are none the variant takes from the state before them, the steps replayed under
    another rule set are that rule set's, and the first step the variant does not take is one
    the audit names as resting on a deviation."""
    before = audit["before_fix"]
    assert before is not None and audit["verdict"] == "deviation"
    states = trace.states()
    for step in before["removed_steps"]:
        action = trace.steps[step - 1].action
        assert all(label != action for label, _ in model.successors(states[step - 1])), step
    other = build_model(trace.model, before["rule_set"], ghost=getattr(model, "ghost", False), **trace.bounds)
    for step in before["switched_steps"]:
        taken = trace.steps[step - 1]
        assert (taken.action, taken.state) in other.successors(states[step - 1]), step
    first = audit["first_unreplayed_step"]
    assert first is not None and any(first in d["steps"] for d in audit["deviations"]), audit["conclusion"]


def test_an_edited_trace_is_judged_on_the_steps_it_has_or_refused_in_one_line(real_traces, tmp_path):
    edits = edited_traces(real_traces)
    assert len(edits) >= 50
    exits = {}
    for name, doc in edits:
        path = tmp_path / "edited.json"
        path.write_text(json.dumps(doc))
        result = run_cli("trace", "audit", "--json", str(path))  # a traceback fails the test here
        exits[name] = result.exit_code
        judged = _judged(path)
        if result.exit_code == 2:
            assert result.stdout == "" and len(result.stderr.strip().splitlines()) == 1, (name, result.output)
            continue
        assert result.exit_code in (0, 1) and judged is not None, (name, result.output)
        trace, model, unreplayed = judged
        audit = json.loads(result.stdout)
        if result.exit_code == 0:
            assert unreplayed is None, (name, "every step as Kafka for a trace its variant cannot take")
            load_trace(path)  # and the counterexample `trace show` accepts
        elif unreplayed is None:
            changed = any(check.get("search_again", {}).get("changed") for check in audit["abstraction_checks"])
            assert audit["deviations"] or audit["verdict"] == "not-judged" or changed, (name, audit["conclusion"])
        else:
            _check_before_fix_claims(trace, model, audit)
    assert set(exits.values()) == {0, 1, 2}, exits


def test_a_trace_whose_rules_a_quorum_fixes_is_replayed_under_no_other_choice(tmp_path):
    """A majority quorum runs only kip320's rule choices: a trace of one that leaves rules unnamed
    (as one saved before they were added would) is replayed under its own choices alone, and an
    edit is refused in one line."""
    result = run_cli("check", "--model", "fetch", "--variant", "kip320", "--quorum", "majority-naive", "--replicas", "3",
                     "--log-size", "1", "--max-records", "1", "--invariant", "hw-monotonic", "--trace-dir", str(tmp_path))
    assert result.exit_code == 1, result.output
    doc = json.loads((tmp_path / "fetch-kip320-hw-monotonic.json").read_text())
    for rule in ("epoch-cache", "isr-expansion"):
        del doc["rules"][rule]
    path = tmp_path / "unnamed.json"
    path.write_text(json.dumps(doc))
    assert json.loads(run_cli("trace", "audit", "--json", str(path)).stdout)["verdict"] == "not-judged"
    path.write_text(json.dumps(_swapped(doc, 1)))
    refused = run_cli("trace", "audit", str(path))
    assert refused.exit_code == 2 and "step 2 is not a step it takes" in refused.stderr
