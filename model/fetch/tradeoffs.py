"""The trade-off table: Kafka's ISR against a majority quorum at replication factor 3.

The source articles weigh the two: with 2f+1 replicas a majority tolerates f failures and
loses nothing committed, while the ISR keeps acknowledging writes with up to 2f replicas gone
but can lose data. The table asks the `fetch` model four questions under five setups (the ISR
with min.insync.replicas 1 and 2, clean and unclean election, and a majority), each answered
by an exhaustive search: "yes" with the shortest trace, or "no" over every reachable state.
Below it, each of the articles' claims is read off the table's cells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from checker.result import CheckResult


@dataclass(frozen=True)
class Setup:
    """One column: a replication setup, as `fetch` model settings, and a name for its files."""

    label: str
    slug: str
    settings: dict


SETUPS = (
    Setup("ISR, min.insync 1, clean", "isr-min-insync-1-clean",
          dict(quorum="isr", min_insync_replicas=1, unclean_leader_election=False)),
    Setup("ISR, min.insync 1, unclean", "isr-min-insync-1-unclean",
          dict(quorum="isr", min_insync_replicas=1, unclean_leader_election=True)),
    Setup("ISR, min.insync 2, clean", "isr-min-insync-2-clean",
          dict(quorum="isr", min_insync_replicas=2, unclean_leader_election=False)),
    Setup("ISR, min.insync 2, unclean", "isr-min-insync-2-unclean",
          dict(quorum="isr", min_insync_replicas=2, unclean_leader_election=True)),
    Setup("majority", "majority", dict(quorum="majority")),
)


@dataclass(frozen=True)
class Question:
    """One row: a question, answered "yes" when `prop` (an invariant) is violated or (a
    witness) reached."""

    text: str
    prop: str


QUESTIONS = (
    Question("can committed data be lost?", "committed-survives"),
    Question("can acknowledged data be lost?", "acked-survives"),
    Question("can it acknowledge a write with 1 broker down?", "acked-with-1-down"),
    Question("can it acknowledge a write with 2 brokers down?", "acked-with-2-down"),
)

BOUNDS = dict(replicas=3, acks="all", max_records=1, max_epoch=2, max_crashes=2)
"""The bounds every setup is checked under (the CLI may change the record and epoch bounds,
the crashes and the flush mode): three replicas, acks=all, two crashes, so that two brokers can
be down for good. One write is enough for every question."""


@dataclass(frozen=True)
class Claim:
    """One of the articles' claims, as the answers it predicts (setup label, property) -> yes/no,
    and what the table shows when a prediction fails."""

    text: str
    predicts: tuple[tuple[str, str, bool], ...]
    otherwise: str


CLAIMS = (
    Claim("a majority of 3 replicas tolerates 1 failure: it acknowledges writes with 1 broker down and loses "
          "nothing committed or acknowledged",
          (("majority", "acked-with-1-down", True), ("majority", "committed-survives", False),
           ("majority", "acked-survives", False)),
          "a majority counts a record as held once it is in a replica's log, and with --flush async a crash loses "
          "what was only in the page cache; Raft and KRaft count a record only once it is durable, which --flush "
          "sync models"),
    Claim("a majority of 3 cannot acknowledge a write with 2 brokers down",
          (("majority", "acked-with-2-down", False),),
          "the majority acknowledged a write with 2 brokers down; see its trace"),
    Claim("the ISR keeps acknowledging writes with up to 2 of 3 brokers down (min.insync.replicas 1)",
          (("ISR, min.insync 1, clean", "acked-with-2-down", True),),
          "min.insync.replicas 1 did not acknowledge with 2 brokers down in these bounds"),
    Claim("min.insync.replicas 2 trades that availability away: no acknowledgement with 2 brokers down",
          (("ISR, min.insync 2, clean", "acked-with-2-down", False),),
          "min.insync.replicas 2 acknowledged a write with 2 brokers down; see its trace"),
    Claim("the ISR can lose committed data where a majority cannot",
          (("ISR, min.insync 1, unclean", "committed-survives", True), ("majority", "committed-survives", False)),
          "see the two committed-survives cells"),
    Claim("the ISR loses data even with clean elections (min.insync.replicas 1)",
          (("ISR, min.insync 1, clean", "committed-survives", True),),
          "with clean elections and --flush sync the ISR loses nothing in these bounds: its losses come from unclean "
          "election and, with --flush async, from the unflushed tail of the last replica standing"),
)


def setup_models(build: Callable[..., Any], bounds: dict) -> list[tuple[Setup, Any]]:
    """Each setup's `fetch` model under `bounds` (`build(**settings)` builds one)."""
    return [(setup, build(**bounds, **setup.settings)) for setup in SETUPS]


def run(explore: Callable, models: Sequence[tuple[Setup, Any]], properties: Sequence,
        on_level: Callable | None = None) -> list[tuple[Setup, CheckResult]]:
    """Explore each setup's model until every question is answered (to the end, unless every
    answer is "yes" sooner)."""
    return [(setup, explore(model, properties, stop_at_first=False, on_level=on_level)) for setup, model in models]


def answer(result: CheckResult, prop: str) -> bool | None:
    """True: violated or reached; False: holds or unreachable (complete search); None: unknown."""
    verdict = result.verdict(prop)
    return {"violated": True, "reachable": True, "holds": False, "unreachable": False}.get(verdict)


def cell(result: CheckResult, prop: str) -> str:
    """'yes, 7 steps', 'no' or 'unknown'."""
    yes = answer(result, prop)
    if yes is None:
        return "unknown"
    return f"yes, {len(result.violations[prop])} steps" if yes else "no"


def claim_verdicts(runs: Sequence[tuple[Setup, CheckResult]]) -> list[tuple[Claim, bool | None, str]]:
    """For each claim: whether the table bears it out (None when a cell it reads is unknown), and
    the cells it read, in words."""
    by_label = {setup.label: result for setup, result in runs}
    verdicts = []
    for claim in CLAIMS:
        answers = [(label, prop, answer(by_label[label], prop), yes) for label, prop, yes in claim.predicts]
        read = "; ".join(f"{label}: {prop} {cell(by_label[label], prop)}" for label, prop, _, _ in answers)
        holds = None if any(a is None for _, _, a, _ in answers) else all(a == yes for _, _, a, yes in answers)
        verdicts.append((claim, holds, read))
    return verdicts
