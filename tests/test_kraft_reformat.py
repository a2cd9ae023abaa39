"""`--reformat`: the `kafka-storage format` command a lost disk is formatted with again under
KIP-853 (kip853, kafka40). `Formatter.doFormat` @ 3.9.0-rc3 gives the metadata directory of a
controller that `--initial-controllers` lists the directory id listed for it and writes the
bootstrap checkpoint (`writeDynamicQuorumSnapshot`); `--no-initial-controllers` (Kafka's docs, for
a controller joining a running cluster) gives a new id and no checkpoint. So the first makes the
wiped controller the voter it was, empty, and the static-voter loss returns; the second makes it
an observer."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from invariants.registry import select
from model.kraft import messages as msg, voter_sets
from model.kraft.state import UNATTACHED
from model.kraft.words import voter_set
from model.registry import build_model

LIVE = 1
"""A request's last item while its sender expects the answer."""
DATA = Path(__file__).resolve().parent / "data" / "kraft"


def _model(reformat, variant="kip853", **bounds):
    return build_model("kraft", variant, **{"replicas": 3, "max_records": 1, "max_elections": 2,
                                            "max_disk_losses": 1, "reformat": reformat, **bounds})


def _lose_disk(model, s, who):
    """The state after controller `who` (1..n) loses its disk in s."""
    return next(t for a, t in model.successors(s) if a[:2] == ("LoseDisk", who))


def _vote_answer(model, s, candidate, voter):
    """The Vote response `voter` sends when it handles `candidate`'s Vote request for epoch 1, an
    empty log, addressed to the voter's first directory (the key the candidate's set names)."""
    s = s._replace(messages=(((msg.VOTE_REQUEST, candidate, voter, 1, 0, 0, 0, LIVE), 1),))
    after = next(t for a, t in model.successors(s) if a[:3] == ("HandleVoteRequest", voter, candidate))
    return msg.fields(next(m for m, _ in after.messages if m[0] == msg.VOTE_RESPONSE))


@pytest.mark.parametrize("reformat, directory, voters, answer", [
    ("no-initial-controllers", 1, {}, "refused"),
    ("initial-controllers", 0, {1: 0, 2: 0, 3: 0}, "granted"),
])
def test_the_format_command_decides_what_a_wiped_voter_comes_back_as(reformat, directory, voters, answer):
    """n1 voted for n2 in epoch 1 and loses its disk: unattached in epoch 0 with no log either
    way; under the directory id and voter set the format gave it, it refuses n3's Vote request
    for its old key (INVALID_VOTER_KEY) or grants it, a second vote in epoch 1."""
    model = _model(reformat)
    voted = model.initial_states()[0]._replace(epoch=(1, 1, 1), role=(UNATTACHED,) * 3, voted_for=(2, 2, 0))
    wiped = _lose_disk(model, voted, 1)
    assert (wiped.role[0], wiped.epoch[0], wiped.voted_for[0], wiped.log[0]) == (UNATTACHED, 0, 0, ())
    assert wiped.directory[0] == directory and voter_sets.members(voter_set(wiped, 0), 3) == voters
    fields = _vote_answer(model, wiped, 3, 1)
    assert (fields.granted, fields.error) == ((1, 0) if answer == "granted" else (0, msg.INVALID_VOTER_KEY))


def test_a_spare_is_formatted_as_it_first_was_either_way():
    """A spare was first formatted with --no-initial-controllers: `--reformat initial-controllers`
    (the first command again) gives it a new directory id as well."""
    model = _model("initial-controllers", spares=1)
    wiped = _lose_disk(model, model.initial_states()[0], 3)
    assert wiped.directory[2] == 1 and voter_set(wiped, 2) == 0


@pytest.mark.parametrize("story, variant", [("kip595-disk-loss.json", "kip853"),
                                            ("kafka40-static-disk-loss.json", "kafka40")])
def test_the_static_voter_loss_returns_step_for_step_with_initial_controllers(story, variant):
    """The static-voter stories (3.8's 20 steps, 4.0's 24) replay step for step under KIP-853
    when the lost disk is formatted with --initial-controllers, and lose the value; formatted with
    --no-initial-controllers the wiped controller is an observer, and the same actions (where
    they are steps at all) lose nothing."""
    from traces.store import load_trace

    trace, static = load_trace(DATA / story)
    acked = select("kraft", ["leader-has-acked-values"])[0]
    bounds = {k: v for k, v in static.parameters().items() if k != "reformat"}
    ends = {}
    for reformat in ("initial-controllers", "no-initial-controllers"):
        model = _model(reformat, variant, **bounds)
        state = model.initial_states()[0]
        for step in trace.steps:
            state = dict(model.successors(state)).get(step.action)
            if state is None:
                break
        ends[reformat] = state
    assert ends["initial-controllers"] is not None and not acked.holds(ends["initial-controllers"])
    assert ends["no-initial-controllers"] is None or acked.holds(ends["no-initial-controllers"])


@pytest.mark.parametrize("bounds, error", [
    (("--variant", "kip595", "--max-disk-losses", "1"), "needs dynamic voters"),
    (("--variant", "kafka40-static", "--max-disk-losses", "1"), "needs dynamic voters"),
    (("--variant", "kip853+voter-key=id", "--max-disk-losses", "1"), "needs dynamic voters"),
    (("--variant", "tla",), "needs dynamic voters"),
    (("--variant", "kip853",), "needs --max-disk-losses"),
])
def test_initial_controllers_where_it_formats_nothing_different_is_refused_in_one_line(bounds, error):
    result = run_cli("check", "--model", "kraft", *bounds, "--reformat", "initial-controllers", "--engine", "local")
    assert result.exit_code == 2 and error in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_an_unknown_choice_is_refused():
    result = run_cli("check", "--model", "kraft", "--max-disk-losses", "1", "--reformat", "standalone")
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_saved_trace_keeps_its_format_command_and_replays_only_under_it(tmp_path):
    """`check --trace-dir` records `reformat` with the bounds; the trace loads with it, replays,
    is explained as the lost disk's second vote, and is every step Kafka 3.9; under the default
    format command the same steps are no behaviour of the model."""
    from traces.explain import explain
    from traces.replay import ReplayError, verify_trace
    from traces.store import load_trace

    result = run_cli("check", "--model", "kraft", "--variant", "kip853", "--replicas", "3", "--max-records", "1",
                     "--max-elections", "2", "--max-disk-losses", "1", "--reformat", "initial-controllers",
                     "--invariant", "leader-has-acked-values", "--engine", "local", "--trace-dir", str(tmp_path))
    assert result.exit_code == 1
    trace, model = load_trace(tmp_path / "kraft-kip853-leader-has-acked-values.json")
    assert model.parameters()["reformat"] == "initial-controllers" and len(trace.steps) == 20
    verify_trace(trace, model)
    told = explain(trace, model)
    assert any("(vote-after-lost-disk)" in line for line in told)
    assert any("formatted with --initial-controllers" in line for line in told)
    assert model.audit(trace).conclusion() == "every step as Kafka 3.9"
    fresh = _model("no-initial-controllers")
    with pytest.raises(ReplayError, match="step 17 \\(LoseDisk\\)"):
        verify_trace(trace, fresh)
