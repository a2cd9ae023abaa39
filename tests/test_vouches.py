"""No row is an abstraction on words alone (`model.vouches`): every abstraction row of the fetch
and kraft rule tables, computed from the tables, is vouched for; each claim's check passes every
step of its row's kinds in a model's reachable graph at small bounds (one answer it flags is
named: a real step Kafka does not take), and fails on a step forged to be no sequence of Kafka's
steps; `trace audit` turns a failed check into a deviation and searches again with Kafka's own
choice of a rule where a trace rests on a row vouched for that way."""

from __future__ import annotations

import json
from collections import deque

import pytest

from conftest import run_cli
from model import citations
from model.fetch import abstractions as fetch_abstractions
from model.fetch import rule_table as fetch_table
from model.fetch.state import FetchResponse
from model.fetch.step_rows import step_rows
from model.kraft import abstractions as kraft_abstractions
from model.kraft import rule_table as kraft_table
from model.kraft.messages import DIVERGING, FETCH_REQUEST, FETCH_RESPONSE, fields
from model.kraft.step_rows import step_rows as kraft_step_rows
from model.kraft.state import LEADER
from model.registry import MODELS, build_model
from model.rule_table import ABSTRACTION
from model.vouches import KafkaChoice, Merges, Steps, unvouched, vouch_table

TABLES = {"fetch": (fetch_table.ROWS, fetch_abstractions.VOUCHES), "kraft": (kraft_table.ROWS, kraft_abstractions.VOUCHES)}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_abstraction_row_is_vouched_for_and_every_vouch_is_an_abstraction_row(name):
    rows, vouches = TABLES[name]
    assert unvouched(rows, vouches) == []
    abstractions = {row.key for row in rows if any(s.kind == ABSTRACTION for s in row.statuses)}
    assert set(vouches) <= abstractions, set(vouches) - abstractions
    assert vouch_table(rows, vouches).count("\n") == len(vouches) + 1


def test_a_row_without_a_vouch_is_found():
    rows, vouches = TABLES["fetch"]
    assert unvouched(rows, {k: v for k, v in vouches.items() if k != "isr-shrink"}) == ["isr-shrink"]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_claim_cites_methods_where_they_were_read(name):
    for key, vouch in TABLES[name][1].items():
        assert citations.citations(vouch.sources), key
        assert citations.problems(vouch.sources) == [], key


@pytest.mark.skipif(not citations.clones_named(), reason="$REPLCHECK_KAFKA_GIT names no clone of apache/kafka")
@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_kafka_clone_has_every_method_a_claim_cites_at_its_place(name):
    """As for the rule tables (tests/test_citations.py): every method a claim cites is in its
    class's file at each place named, in the first clone that holds it."""
    from types import SimpleNamespace

    claims = [SimpleNamespace(key=key, sources=vouch.sources) for key, vouch in TABLES[name][1].items()]
    clones = citations.clones_named()
    assert citations.missing(clones, claims) == []
    assert [place for place in citations.unchecked(clones, claims) if place in citations.RELEASE_TAGS] == []


def test_a_kafka_choice_names_a_rule_choice_of_the_model_for_the_variants_the_row_is_an_abstraction_in():
    book = MODELS["fetch"].rules
    for key, vouch in fetch_abstractions.VOUCHES.items():
        if not isinstance(vouch, KafkaChoice):
            continue
        for variant, switches in vouch.choices.items():
            releases = fetch_table.RELEASES[variant]
            assert all(fetch_table.BY_KEY[key].status(r).kind == ABSTRACTION for r in releases), (key, variant)
            assert all(choice in book.rule(rule).choices for rule, choice in switches.items())


# ----- walking a model ----------------------------------------------------------------------------

def edges(model, levels: int):
    """Every step (before, action, after) out of the states within `levels` steps of the initial
    state, breadth first."""
    first = model.initial_states()[0]
    seen, frontier = {first}, deque([(first, 0)])
    while frontier:
        state, depth = frontier.popleft()
        if depth == levels:
            continue
        for action, after in model.successors(state):
            yield state, action, after
            if after not in seen:
                seen.add(after)
                frontier.append((after, depth + 1))


def path(model, actions) -> Steps:
    """The steps `actions` take from the model's initial state."""
    states = [model.initial_states()[0]]
    for action in actions:
        states.append(next(t for a, t in model.successors(states[-1]) if a == tuple(action)))
    return Steps(model, states, [tuple(a) for a in actions])


def fetch_rows(model, before, action, after):
    """The rows a fetch step rests on."""
    return step_rows([before, after], [action], 1, model)


def kraft_rows(model, before, action, after):
    """The rows a kraft step rests on."""
    return kraft_step_rows([before, after], [action], 1, model.rules)


GRAPHS = [  # (model, variant, bounds, levels, the rows whose checks must pass there)
    ("fetch", "kip320", dict(max_crashes=1), 14, ("when-truncation", "isr-shrink", "restart-from-disk")),
    ("fetch", "kip320", dict(replicas=3, max_fencings=1, controlled_shutdown=True), 7,
     ("fencing", "controlled-shutdown", "election-order")),
    ("fetch", "kafka37", dict(replicas=3, controlled_shutdown=True, max_disk_losses=1, max_crashes=2), 8,
     ("leader-epoch-bump", "controlled-shutdown", "empty-disk-restart", "when-truncation", "isr-shrink")),
    ("fetch", "kip966", dict(replicas=3, controlled_shutdown=True, max_crashes=1), 8, ("controlled-shutdown",)),
    ("fetch", "kip101", dict(replicas=3, unclean_leader_election=True), 8, ("unclean-election", "isr-shrink")),
    ("kraft", "kip853", dict(spares=1, max_voter_changes=1, max_elections=2), 9,
     ("stand", "begin-quorum", "fetch", "follower-append", "connections")),
    ("kraft", "kafka40", dict(max_elections=3), 7, ("stand", "pre-vote", "connections", "follower-append")),
    ("kraft", "kip595", dict(max_elections=2, max_restarts=1), 9,
     ("stand", "begin-quorum", "connections", "fetch", "fetch-nothing-new")),
]


@pytest.mark.parametrize("name, variant, bounds, levels, keys", GRAPHS, ids=[f"{g[0]}-{g[1]}" for g in GRAPHS])
def test_each_claim_holds_for_every_step_of_a_small_reachable_graph(name, variant, bounds, levels, keys):
    model = build_model(name, variant, **bounds)
    vouches = TABLES[name][1]
    rows_of = fetch_rows if name == "fetch" else kraft_rows
    checked = dict.fromkeys(keys, 0)
    for before, action, after in edges(model, levels):
        for key in set(rows_of(model, before, action, after)) & set(keys):
            assert vouches[key].check(Steps(model, [before, after], [action]), 1) is None, (key, action)
            checked[key] += 1
    assert all(checked.values()), checked


def test_an_answer_with_records_carries_the_hw_before_the_fetch_was_recorded_and_the_model_s_does_not():
    """follower-hw: every answer the model sends without records passes (a parked FETCH, answered
    after its wait); an answer with records is flagged exactly when its HW is not the leader's HW
    from before it recorded the FETCH, and at these bounds the model sends such answers."""
    model = build_model("fetch", "hw", flush="async", acks="1")
    check = fetch_abstractions.VOUCHES["follower-hw"].check
    flagged = passed = 0
    for before, action, after in edges(model, 9):
        if action[0] != "LeaderServeFetch":
            continue
        f = action[2]
        applied = next((t for a, t in model.successors(after) if a == ("FollowerApplyResponse", f)), None)
        answer = after.brokers[f].fetch
        if applied is None or not isinstance(answer, FetchResponse) or answer.fenced:
            continue
        why = check(Steps(model, [before, after, applied], [action, ("FollowerApplyResponse", f)]), 2)
        assert (why is not None) == (bool(answer.records) and answer.hw != before.brokers[action[1]].hw), action
        flagged += why is not None
        passed += why is None
    assert flagged and passed


# ----- forged steps -------------------------------------------------------------------------------

def first(model, levels: int, kind: str, where=lambda before, action, after: True):
    """The first step of `kind` (with `where`) found breadth first."""
    return next((b, a, t) for b, a, t in edges(model, levels) if a[0] == kind and where(b, a, t))


def with_broker(state, r: int, **fields):
    """`state` with broker r's fields replaced."""
    brokers = list(state.brokers)
    brokers[r] = brokers[r]._replace(**fields)
    return state._replace(brokers=tuple(brokers))


def forged(row: str, model, before, action, after) -> str | None:
    """The check of `row` on a step from `before` by `action` to a forged `after`."""
    return TABLES[model.name][1][row].check(Steps(model, [before, after], [action]), 1)


def test_a_shrink_of_a_caught_up_follower_or_of_two_fails_isr_shrink():
    model = build_model("fetch", "kip320", replicas=3)
    before, action, after = first(model, 10, "LeaderShrinkIsr")
    ldr, f = action[1:3]
    assert forged("isr-shrink", model, before, action, after) is None
    caught_up = with_broker(before, ldr, remote=tuple(before.brokers[ldr].leo if g == f else x
                                                       for g, x in enumerate(before.brokers[ldr].remote)))
    assert "never out of sync" in forged("isr-shrink", model, caught_up, action, after)
    both = after._replace(controller=after.controller._replace(isr=1 << ldr))
    assert "alone" in forged("isr-shrink", model, before, action, both)


def test_a_fenced_broker_that_hears_of_it_at_once_fails_fencing():
    model = build_model("fetch", "kip320", max_fencings=1)
    before, action, after = first(model, 8, "FenceLiveBroker")
    assert forged("fencing", model, before, action, after) is None
    r = action[1]
    told = with_broker(after, r, hw=after.brokers[r].hw + 1)
    assert "learnt" in forged("fencing", model, before, action, told)


def test_a_controlled_shutdown_that_leaves_the_broker_running_or_its_log_unflushed_fails():
    model = build_model("fetch", "kip320", flush="async", controlled_shutdown=True)
    before, action, after = first(model, 8, "ControlledShutdown", lambda b, a, t: b.brokers[a[1]].flushed < b.brokers[a[1]].leo)
    assert forged("controlled-shutdown", model, before, action, after) is None
    r = action[1]
    assert forged("controlled-shutdown", model, before, action, with_broker(after, r, alive=True)) is not None
    assert forged("controlled-shutdown", model, before, action, with_broker(after, r, flushed=0, log=())) is not None


def test_a_crash_that_keeps_an_unflushed_record_fails_restart_from_disk():
    model = build_model("fetch", "kip320", flush="async", max_crashes=1)
    before, action, after = first(model, 6, "Crash", lambda b, a, t: b.brokers[a[1]].flushed < b.brokers[a[1]].leo)
    r = action[1]
    assert forged("restart-from-disk", model, before, action, after) is None
    kept = with_broker(after, r, log=before.brokers[r].log, flushed=before.brokers[r].leo)
    assert "flushed records" in forged("restart-from-disk", model, before, action, kept)


def test_a_restart_on_an_empty_disk_that_keeps_a_record_fails():
    model = build_model("fetch", "kip320", max_crashes=1, max_disk_losses=1)
    before, action, after = first(model, 10, "RestartEmpty", lambda b, a, t: b.brokers[a[1]].log)
    r = action[1]
    assert forged("empty-disk-restart", model, before, action, after) is None
    assert "lost disk" in forged("empty-disk-restart", model, before, action,
                                 with_broker(after, r, log=before.brokers[r].log[:1]))


def test_a_follower_that_truncates_elsewhere_than_kafka_s_fetches_fails_when_truncation():
    model = build_model("fetch", "kip320", max_crashes=1)
    before, action, after = first(model, 14, "BecomeFollower", lambda b, a, t: t.brokers[a[1]].leo < b.brokers[a[1]].leo)
    r = action[1]
    assert forged("when-truncation", model, before, action, after) is None
    kept = with_broker(after, r, log=before.brokers[r].log, cache=before.brokers[r].cache)
    assert "Kafka's FETCHes leave" in forged("when-truncation", model, before, action, kept)


def test_diverging_fetches_walk_the_epochs_as_kafka_s_follower_does():
    """A follower with records of epochs 0 and 2 (its own leadership) against a leader whose
    epoch 1 started at offset 1: the first answer names epoch 0 ending at 1, the follower keeps
    one record, and the next FETCH (last epoch 0, offset 1) no longer diverges."""
    from model.fetch.state import Broker, Record

    follower = Broker(True, (Record(0, 0), Record(1, 2)), 2, 0, ((0, 0), (2, 1)), 0, 2, 0, 0, (-1, -1), (), ())
    leader = Broker(True, (Record(0, 0), Record(2, 1)), 2, 0, ((0, 0), (1, 1), (3, 2)), 0, 3, 1, 3, (-1, -1), (), ())
    assert fetch_abstractions.diverging_fetches(follower, leader) == ((Record(0, 0),), ((0, 0),))
    assert fetch_abstractions.diverging_fetches(leader, leader) == (leader.log, leader.cache)


def test_a_same_epoch_isr_change_that_does_not_reach_the_leader_fails_leader_epoch_bump():
    model = build_model("fetch", "kafka37", replicas=3)
    before, action, after = first(model, 10, "LeaderShrinkIsr")
    ldr = action[1]
    assert forged("leader-epoch-bump", model, before, action, after) is None
    stale = with_broker(after, ldr, isr=before.brokers[ldr].isr)
    assert "has not reached" in forged("leader-epoch-bump", model, before, action, stale)


def test_an_unclean_leader_with_company_in_the_isr_fails_unclean_election():
    model = build_model("fetch", "kip101", replicas=3, unclean_leader_election=True)
    before, action, after = first(model, 9, "ControllerNoticeFailure",
                                  lambda b, a, t: "unclean-election" in fetch_rows(model, b, a, t))
    assert forged("unclean-election", model, before, action, after) is None
    crowded = after._replace(controller=after.controller._replace(isr=after.controller.isr | 1 << action[1]))
    assert "alone" in forged("unclean-election", model, before, action, crowded)


ELECT = [("BecomeLeader", 0, 0), ("BecomeFollower", 1, 0, 0), ("BecomeFollower", 2, 0, 0), ("Crash", 0),
         ("ControllerNoticeFailure", 0, 2)]
"""kip320 at three replicas: r1, the partition's first leader, crashes, and the controller elects r3 over r2."""


def test_one_assignment_order_must_explain_every_election_of_a_trace():
    model = build_model("fetch", "kip320", replicas=3)
    check = fetch_abstractions.VOUCHES["election-order"].check
    assert check(path(model, ELECT), 5) is None  # the order r1, r3, r2
    assert fetch_abstractions._has_order({(0, 2), (2, 1)})
    assert not fetch_abstractions._has_order({(0, 2), (2, 1), (1, 0)})


BACK_IN_THE_ISR = ELECT + [("BecomeLeader", 2, 1), ("BecomeFollower", 1, 2, 1), ("Restart", 0),
                           ("ControllerNoticeRestart", 0, 2), ("BecomeFollower", 0, 2, 1), ("FollowerFetch", 0),
                           ("LeaderServeFetch", 2, 0), ("FollowerApplyResponse", 0), ("LeaderExpandIsr", 2, 0),
                           ("Crash", 2)]
"""Then r3 leads, r1 comes back into the ISR, and r3 crashes: r1 and r2 are the candidates."""


def test_an_election_no_assignment_order_makes_fails_election_order():
    """r1 was the partition's first leader, so the first of the order: with r3 elected over r2
    before, electing r2 over r1 now is no assignment order's choice, electing r1 is."""
    model = build_model("fetch", "kip320", replicas=3, max_crashes=2)
    check = fetch_abstractions.VOUCHES["election-order"].check
    wrong = path(model, BACK_IN_THE_ISR + [("ControllerNoticeFailure", 2, 1)])
    assert "no replica assignment order elects r2 among r1, r2" in check(wrong, len(wrong.actions))
    right = path(model, BACK_IN_THE_ISR + [("ControllerNoticeFailure", 2, 0)])
    assert check(right, len(right.actions)) is None
    later = Steps(model, wrong.states[1:], wrong.actions[1:])  # the partition's creation unknown
    assert check(later, len(later.actions)) is None


def test_a_candidate_in_its_old_epoch_fails_stand():
    model = build_model("kraft", "kip595")
    before, action, after = first(model, 2, "Timeout")
    v = action[1] - 1
    assert forged("stand", model, before, action, after) is None
    stale = after._replace(epoch=tuple(before.epoch[v] if i == v else e for i, e in enumerate(after.epoch)))
    assert "Kafka's transition" in forged("stand", model, before, action, stale)


def test_a_prospective_that_forgets_its_vote_fails_pre_vote():
    model = build_model("kraft", "kafka40", max_elections=3)
    before, action, after = first(model, 8, "ProspectiveTimeout", lambda b, a, t: b.voted_for[a[1] - 1])
    v = action[1] - 1
    assert forged("pre-vote", model, before, action, after) is None
    forgot = after._replace(voted_for=tuple(0 if i == v else x for i, x in enumerate(after.voted_for)))
    assert "lost pre-vote" in forged("pre-vote", model, before, action, forgot)


def test_a_begin_quorum_epoch_to_a_voter_that_acknowledged_fails_begin_quorum_under_3_8():
    model = build_model("kraft", "kip595")
    before, action, after = first(model, 10, "SendBeginQuorumEpoch")
    v = action[1] - 1
    assert forged("begin-quorum", model, before, action, after) is None
    acknowledged = before._replace(heard=tuple(h | 0b111 if i == v else h for i, h in enumerate(before.heard)))
    assert "3.8 sends it no BeginQuorumEpoch" in forged("begin-quorum", model, acknowledged, action, after)


def test_an_append_left_unflushed_and_a_message_handled_twice_fail_their_claims():
    model = build_model("kraft", "kip595")
    before, action, after = first(model, 12, "HandleFetchResponse", lambda b, a, t: len(t.log[a[1] - 1]) > len(b.log[a[1] - 1]))
    v = action[1] - 1
    assert forged("follower-append", model, before, action, after) is None
    unflushed = after._replace(flushed=tuple(before.flushed[v] if i == v else x for i, x in enumerate(after.flushed)))
    assert "without flushing" in forged("follower-append", model, before, action, unflushed)
    assert forged("connections", model, before, action, after) is None
    assert "still in flight" in forged("connections", model, before, action, after._replace(messages=before.messages))


def test_an_answer_that_leaves_records_out_fails_fetch_and_a_leader_that_resigns_elsewhere_fails_resign():
    model = build_model("kraft", "kip595")
    before, action, after = first(model, 12, "HandleFetchRequest",
                                  lambda b, a, t: any(m[0] == FETCH_RESPONSE and m[10] for m, _ in t.messages))
    assert forged("fetch", model, before, action, after) is None
    other = tuple((m[:10] + (m[10] + m[10][-1:],) + m[11:], c) if m[0] == FETCH_RESPONSE else (m, c)
                  for m, c in after.messages)
    assert "every record" in forged("fetch", model, before, action, after._replace(messages=other))
    voters = build_model("kraft", "kip853", max_voter_changes=1)
    resigning = next(walks_to(voters, "Resign"))
    before, action, after = resigning.states[-2], resigning.actions[-1], resigning.states[-1]
    v = action[1] - 1
    assert forged("resign", voters, before, action, after) is None
    moved = after._replace(epoch=tuple(e + 1 if i == v else e for i, e in enumerate(after.epoch)))
    assert "in its epoch" in forged("resign", voters, before, action, moved)


def walks_to(model, kind: str, walks: int = 200, length: int = 60):
    """The steps of seeded random walks from the initial state, up to each step of `kind` they
    take (the same walks on every run)."""
    import random

    pick = random.Random(66)
    for _ in range(walks):
        states, actions = [model.initial_states()[0]], []
        for _ in range(length):
            steps = model.successors(states[-1])
            if not steps:
                break
            action, after = steps[pick.randrange(len(steps))]
            states.append(after)
            actions.append(action)
            if action[0] == kind:
                yield Steps(model, list(states), list(actions))


def test_add_voter_needs_the_new_voter_to_have_fetched_up_to_the_leader_s_log_end_in_its_epoch():
    """A spare the leader never saw fetch up to its log end is added by the model, and Kafka 3.9
    refuses it (REQUEST_TIMED_OUT); one that did is added by both."""
    model = build_model("kraft", "kip853", spares=1, max_voter_changes=1, max_elections=2)
    check = kraft_abstractions.VOUCHES["add-voter"].check
    verdicts = [check(steps, len(steps.actions)) for steps in walks_to(model, "AddVoter")]
    assert any(why is None for why in verdicts)
    assert any(why and "REQUEST_TIMED_OUT" in why for why in verdicts)


# ----- the audit ----------------------------------------------------------------------------------

def violation(tmp_path_factory, *options: str):
    """The trace of one `replcheck check --model fetch` with these options."""
    where = tmp_path_factory.mktemp("trace")
    result = run_cli("check", "--model", "fetch", *options, "--trace-dir", str(where))
    assert result.exit_code == 1, result.output
    return next(where.glob("*.json"))


@pytest.fixture(scope="module")
def hw_trace(tmp_path_factory):
    """KAFKA-1211's trace under hw, on Kafka 0.10's own controller."""
    return violation(tmp_path_factory, "--variant", "hw", "--invariant", "committed-survives")


def test_the_audit_searches_again_with_a_kafka_choice_and_says_what_it_gives(hw_trace, monkeypatch):
    """The search again, on a vouch made for this test (no abstraction row has Kafka's own
    behaviour as another rule choice today): KAFKA-1211's trace rests on row restart-from-disk,
    and with truncation=kip101 (which is kip101's rule set) these bounds give no violation: exit 1,
    the search's line before the last, and its JSON under the row."""
    made = KafkaChoice({"hw": {"truncation": "kip101"}}, "made for the test", "`Log.recoverLog` @ 0.10.2.0")
    monkeypatch.setitem(fetch_abstractions.VOUCHES, "restart-from-disk", made)
    result = run_cli("trace", "audit", str(hw_trace))
    assert result.exit_code == 1, result.output
    *_, searched, last = result.output.strip().splitlines()
    assert searched == ("rests on abstraction restart-from-disk: with Kafka's own behaviour "
                        "(hw+truncation=kip101) these bounds give holds")
    assert last == "every step as Kafka 0.10"
    audit = json.loads(run_cli("trace", "audit", "--json", str(hw_trace)).stdout)
    again = {c["row"]: c for c in audit["abstraction_checks"]}["restart-from-disk"]["search_again"]
    assert again == {"row": "restart-from-disk", "variant": "hw+truncation=kip101", "verdict": "holds",
                     "steps": None, "trace_verdict": "violated", "changed": True}


def _with_message(state, old: tuple, new: tuple):
    """`state` with message `old` in flight replaced by `new`."""
    return state._replace(messages=tuple((new if m == old else m, n) for m, n in state.messages))


def _fetch_answer(state, leader: int, follower: int) -> tuple:
    """The FETCH answer from `leader` to `follower` in flight in `state`."""
    return next(m for m, _ in state.messages if m[0] == FETCH_RESPONSE and m[1:3] == (leader, follower))


def test_an_empty_answer_to_a_fetch_behind_the_log_end_or_without_the_hw_fails_fetch_nothing_new():
    model = build_model("kraft", "kip595", max_elections=2)
    before, action, after = first(model, 12, "HandleFetchRequest",
                                  lambda b, a, t: "fetch-nothing-new" in kraft_step_rows([b, t], [a], 1, model.rules))
    leader, follower = action[1:3]
    assert forged("fetch-nothing-new", model, before, action, after) is None
    answer = _fetch_answer(after, leader, follower)
    wrong_hw = answer[:4] + tuple(fields(answer)._replace(hwm=fields(answer).hwm + 1))
    assert "HW" in forged("fetch-nothing-new", model, before, action, _with_message(after, answer, wrong_hw))
    request = next(m for m, _ in before.messages if m[0] == FETCH_REQUEST and m[1:3] == (follower, leader))
    behind = request[:4] + (request[4] + 1,) + request[5:]
    assert "not its log end" in forged("fetch-nothing-new", model, _with_message(before, request, behind), action, after)


def test_a_diverging_answer_that_names_another_end_than_the_leader_s_log_fails_fetch_diverging():
    """3.3 to 3.5 answer a parked diverging FETCH with where the follower's last epoch ends in the
    leader's log at that moment: an answer forged on a leader's log (two epochs) passes when it
    names that end and fails when it names another."""
    model = build_model("kraft", "kip595", max_elections=2)
    before, action, after = first(model, 12, "HandleFetchRequest",
                                  lambda b, a, t: "fetch-records" in kraft_step_rows([b, t], [a], 1, model.rules))
    leader, follower = action[1:3]
    log = ((1, 0), (2, 0))  # epoch 1 ends at offset 1 in the leader's log
    leaders = tuple(log if i == leader - 1 else entries for i, entries in enumerate(before.log))
    request = next(m for m, _ in before.messages if m[0] == FETCH_REQUEST and m[1:3] == (follower, leader))
    asked = _with_message(before._replace(log=leaders), request, request[:4] + (2, 1) + request[6:])
    answer = _fetch_answer(after, leader, follower)

    def answered(epoch: int, end: int):
        diverging = fields(answer)._replace(result=DIVERGING, diverging_epoch=epoch, diverging_end_offset=end, entries=())
        return _with_message(after, answer, answer[:4] + tuple(diverging))

    assert forged("fetch-diverging", model, asked, action, answered(1, 1)) is None
    assert "ends at 1" in forged("fetch-diverging", model, asked, action, answered(1, 2))
