"""`trace audit`'s searches again with Kafka's own behaviour: for each abstraction row a trace
rests on that is vouched for by another choice of a rule (`model.vouches.KafkaChoice`), the
trace's check (same model, bounds and property) searched exhaustively with that choice, and
whether the verdict differs from the trace's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from checker.reduce import reducing
from checker.symmetry_choice import choose_symmetry
from invariants.registry import select
from model.params import ModelError
from model.registry import MODELS
from model.rules import switched
from traces.store import model_from_file
from traces.trace import Trace
from .errors import UserError
from .search import search


@dataclass(frozen=True)
class Rerun:
    """A search again for one abstraction row: the rule set searched (the trace's with the row's
    switches), the verdict it gave for the trace's property ("violated", "holds", "reachable",
    "unreachable"), its shortest trace's length (None when none), and the trace's own verdict."""

    row: str
    variant: str
    verdict: str
    steps: int | None
    own: str

    @property
    def changed(self) -> bool:
        """Kafka's own behaviour gives these bounds another verdict than the trace's."""
        return self.verdict != self.own

    def line(self) -> str:
        """'rests on abstraction ROW: with Kafka's own behaviour these bounds give VERDICT'."""
        found = f" in {self.steps} steps" if self.steps is not None else ""
        return (f"rests on abstraction {self.row}: with Kafka's own behaviour ({self.variant}) these bounds give "
                f"{self.verdict}{found}")

    def to_json(self) -> dict:
        """The search again as JSON data, under its row in `trace audit --json`."""
        return {"row": self.row, "variant": self.variant, "verdict": self.verdict, "steps": self.steps,
                "trace_verdict": self.own, "changed": self.changed}


def reruns(trace: Trace, model, audit) -> list[Rerun]:
    """The searches again that `audit` (of `trace`, in `model`) asks for, run one by one, each an
    exhaustive search of the trace's property at its bounds with the row's switches (a row whose
    switches the trace's rule set already has asks for none). UserError (one line) when a rule set
    cannot be built."""
    book = MODELS[trace.model].rules
    done = []
    for row in audit.vouched:
        if not row.switches:
            continue
        rule_set = switched(book, book.resolve(model.variant), dict(row.switches))
        if rule_set.name == model.variant:
            continue
        try:
            properties = select(trace.model, [trace.invariant])
            other = model_from_file(trace.model, rule_set.name, model.ghost, trace.bounds)
        except ModelError as exc:
            raise UserError(f"cannot search again with Kafka's own behaviour for {row.row}: {exc}") from None
        with search("local", None, None, None, None, f"{row.row}: {rule_set.name}", [other]) as (explore, on_level):
            result = reducing(explore, False)(other, properties, stop_at_first=True, on_level=on_level,
                                              symmetry=choose_symmetry([other], properties, None)[0])
        found = result.violations.get(trace.invariant)
        own = "reachable" if properties[0].witness else "violated"
        done.append(Rerun(row.row, rule_set.name, result.verdict(trace.invariant),
                          len(found) if found is not None else None, own))
    return done
