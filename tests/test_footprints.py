"""The footprints a model declares for `--reduce` (`checker.independence`) against its kernel.

On every reachable state of small bound sets: every step the kernel takes is declared; two
steps declared independent, both enabled, reach the same state in either order and neither
disables the other; every condition a step needs holds where the step is enabled, and a step
that makes a condition true is among its declared enablers; a step that enables a disabled one
whose conditions all hold is among that one's declared enablers; and a step that changes
whether a state property holds, or breaks a step property, is visible to it; and every cycle
takes a step of a kind the model says every cycle takes. These are exactly the facts a stubborn-set
reduction rests on, so a footprint that claims too little fails here."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from checker.independence import Independence
from checker.kernel.steps import code_kind
from invariants.fetch import STATE_INVARIANTS, STEP_PROPERTIES, broken_steps
from model.fetch.bounds import PARAMS, FetchConfig
from model.fetch.conditions import CONDITIONS, condition_values
from model.fetch.footprints import CYCLE_KINDS, changed_by, condition_enablers, step_footprints
from model.fetch.model import FetchModel


def fetch_model(variant: str, **bounds) -> FetchModel:
    """A `fetch` instance with ghost variables, at the default bounds but for `bounds`."""
    values = {p.name.replace("-", "_"): p.default for p in PARAMS}
    values.update(bounds)
    return FetchModel(variant, FetchConfig(**values), True)


def reachable(kernel, row):
    """Every reachable packed row (as bytes) -> {action code: successor bytes}."""
    graph, todo = {}, [row]
    while todo:
        row = todo.pop()
        key = row.tobytes()
        if key in graph:
            continue
        steps = kernel.successor_rows(row)
        graph[key] = {code: nxt.tobytes() for code, nxt in steps}
        todo.extend(nxt for _, nxt in steps if nxt.tobytes() not in graph)
    return graph


def broken_claims(model, names, declare=step_footprints) -> list[str]:
    """Every way the footprints `declare(layout)` misdescribe the kernel on this instance's
    reachable states."""
    kernel, lay = model.kernel, model.kernel.layout
    declared = declare(lay)
    relations = Independence(declared, changed_by(lay, [*names, *(p.name for p in STEP_PROPERTIES)]),
                             condition_enablers(lay, declared))
    steps_visible = {p.name: relations.visible([p.name]) for p in STEP_PROPERTIES}
    index = {int(code): i for i, code in enumerate(relations.codes)}
    visible = {name: relations.visible([name]) for name in names}
    predicates = {inv.name: inv.kernel for inv in STATE_INVARIANTS if inv.name in names}
    graph = reachable(kernel, kernel.encode(model.initial_states()[0]))
    holds = {key: {name: bool(predicates[name](np.frombuffer(key, np.int8), lay)) for name in names} for key in graph}
    conditions = relations.conditions
    met = {key: condition_values(np.frombuffer(key, np.int8), lay, conditions, np.zeros(len(conditions), bool))
           for key in graph}
    label = lambda code: str(kernel.action_value(code))  # noqa: E731
    said = lambda k: str((CONDITIONS[conditions[k][0]], *map(int, conditions[k][1:])))  # noqa: E731
    wrong = set()
    for key, steps in graph.items():
        for a in steps:
            if a in index:
                for k in relations.needs[index[a]]:
                    if not met[key][k]:
                        wrong.add(f"{label(a)} enabled where {said(k)} is false")
        for a, after_a in steps.items():
            if a not in index:
                wrong.add(f"undeclared {label(a)}")
                continue
            i = index[a]
            for b, after_b in steps.items():
                if b != a and b in index and not relations.dependence[i, index[b]]:
                    if graph[after_a].get(b) is None or graph[after_a].get(b) != graph[after_b].get(a):
                        wrong.add(f"{label(a)} and {label(b)} declared independent")
            for k in np.flatnonzero(~met[key] & met[after_a] & ~relations.condition_enabling[:, i]):
                wrong.add(f"{label(a)} makes {said(k)} true, not among its enablers")
            for b in graph[after_a]:
                if b not in steps and b in index and met[key][relations.needs[index[b]]].all() \
                        and not relations.enabling[index[b], i]:
                    wrong.add(f"{label(a)} enables {label(b)}, not among its enablers")
            for name in names:
                if holds[key][name] != holds[after_a][name] and not visible[name][i]:
                    wrong.add(f"{label(a)} changes {name}, declared invisible")
            broken = broken_steps(np.frombuffer(key, np.int8), a, np.frombuffer(after_a, np.int8), lay,
                                  (1 << len(STEP_PROPERTIES)) - 1)
            for bit, prop in enumerate(STEP_PROPERTIES):
                if broken >> bit & 1 and not steps_visible[prop.name][i]:
                    wrong.add(f"{label(a)} breaks {prop.name}, declared invisible")
    closing = set(CYCLE_KINDS) | {int(k) for k, every in zip(relations.kinds, relations.everything) if every}
    rest = nx.DiGraph((key, after) for key, steps in graph.items() for a, after in steps.items()
                      if code_kind(a) not in closing)
    try:
        cycle = nx.find_cycle(rest)
        wrong.add(f"a cycle of {len(cycle)} steps takes none of CYCLE_KINDS")
    except nx.NetworkXNoCycle:
        pass
    return sorted(wrong)


CASES = [("kip101", dict(replicas=2, max_crashes=1, flush="async", log_size=1, max_records=1)),
         ("kip320", dict(replicas=2, max_crashes=1, flush="async", log_size=1, max_records=2)),
         ("kafka37", dict(replicas=2, max_crashes=1, flush="async", log_size=1, max_records=1, max_epoch=3)),
         ("kip966", dict(replicas=2, max_crashes=1, flush="async", log_size=1, max_records=1, max_epoch=3)),
         ("kip903", dict(replicas=2, max_crashes=2, log_size=1, max_records=1)),
         ("hw", dict(replicas=2, max_crashes=1, log_size=1, max_records=2)),
         ("kip903", dict(replicas=2, max_crashes=1, log_size=1, max_records=1, max_disk_losses=1)),
         ("kip320", dict(replicas=2, max_crashes=1, log_size=1, max_records=1, max_fencings=1)),
         ("kafka37", dict(replicas=2, max_crashes=1, log_size=1, max_records=1, controlled_shutdown=True)),
         ("kip101", dict(replicas=2, max_crashes=1, log_size=2, max_records=2, acks="1", unclean_leader_election=True)),
         ("kip320", dict(replicas=3, max_crashes=1, log_size=1, max_records=1, quorum="majority", max_epoch=1)),
         ("kip320", dict(replicas=2, max_crashes=1, log_size=1, max_records=1, retries=True)),
         ("kip320", dict(replicas=3, max_crashes=1, log_size=1, max_records=1, max_epoch=1)),
         # Kafka 0.10 to 2.1's controller: missed bounces, queues kept for a broker that is down, failovers, the
         # preferred replica's elections (at 3 replicas, where a renaming can keep it), fencings and controlled
         # shutdowns
         ("kip279", dict(replicas=3, max_crashes=1, log_size=1, max_records=1, max_epoch=2)),
         ("kip101", dict(replicas=2, max_crashes=1, log_size=1, max_records=1, max_fencings=1,
                         controlled_shutdown=True))]


@pytest.mark.parametrize("variant, bounds", CASES, ids=[f"{variant}-{i}" for i, (variant, _) in enumerate(CASES)])
def test_fetch_footprints_match_the_kernel(variant, bounds):
    names = [inv.name for inv in STATE_INVARIANTS]
    assert broken_claims(fetch_model(variant, **bounds), names) == []


def test_a_footprint_claiming_too_little_is_caught():
    """The check fails for real: a Flush declared to read and write nothing would commute with a
    crash of its broker, which keeps only what was flushed."""
    from checker.independence import footprint
    from model.fetch.kinds import FLUSH

    def lying(lay):
        steps = step_footprints(lay)
        for r in range(lay.replicas):
            steps[FLUSH, r] = footprint()
        return steps

    wrong = broken_claims(fetch_model("kip320", replicas=2, max_crashes=1, flush="async", log_size=1, max_records=1),
                          ["committed-survives"], lying)
    assert "('Flush', 0) and ('Crash', 0) declared independent" in wrong, wrong
