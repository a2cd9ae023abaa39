"""Ablation: which of a variant's rules a guarantee needs.

`switched_one_at_a_time`: the variant with each rule switched back to its predecessor (the
choice it replaced in Kafka's history), or to each other choice, one rule at a time; each is
one search. A rule whose switch breaks an invariant that holds under the variant is needed
there, and the search's shortest trace shows why.

`minimal_rule_sets`: the smallest sets of the variant's rules which, switched on top of a base
variant, make the invariant hold. The candidates are the subsets of the rules on which the two
differ, visited by size, smallest first; a set is minimal when the invariant holds under it and
under none of its proper subsets. Two prunings skip searches, and neither can change the
answer:

- a superset of a set under which the invariant holds is not minimal, whatever its own
  verdict, so it is not searched (this needs no assumption that adding rules keeps a
  guarantee: such a set is simply not a candidate);
- a set under which a counterexample already found (for a smaller set) replays, every step
  enabled and the invariant failing on the way, is violated: the replay is a behaviour of that
  rule set, so no search is needed to know its verdict.

Every subset is decided, so every set that holds with no holding proper subset is found. The
prunings use only what earlier sizes found, so the searches of one size are independent and
run side by side (`checker.jobs.search_jobs`), and the answer is the same on every engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable

from model.rules import RuleBook, RuleSet, switched

from .search_jobs import Job, Outcome, Runner


@dataclass(frozen=True)
class Trial:
    """One rule set tried: its name, the rules switched (rule -> choice, from the variant for a
    one-at-a-time row, from the base for a lattice candidate), and what was found: `how` is
    'searched', 'replayed' (a smaller set's counterexample replays under it) or 'superset'
    (it contains a holding set, so it is not minimal and was not searched)."""

    variant: str
    switched: dict
    how: str
    violated: bool | None = None
    outcome: Outcome | None = None
    replayed_from: str | None = None
    replayed_length: int | None = None

    @property
    def trace_length(self) -> int | None:
        """The counterexample's length: the shortest one a search found, or the replayed prefix
        (None when the invariant held or the set was not decided by a trace)."""
        if self.how == "replayed":
            return self.replayed_length
        return len(self.outcome.trace["steps"]) if self.violated else None


def switched_one_at_a_time(book: RuleBook, variant: RuleSet, alternatives: bool = False) -> list[tuple[str, str, str]]:
    """(rule, from, to) for each switch to try, in rule order: each rule to the choice it
    replaced (rules at their oldest choice have none), or with `alternatives` to every other
    choice."""
    switches = []
    for rule in book.rules:
        ours = variant.choices[rule.name]
        targets = [c for c in rule.choices if c != ours] if alternatives else [rule.predecessor(ours)]
        switches += [(rule.name, ours, target) for target in targets if target is not None]
    return switches


def one_at_a_time(book: RuleBook, variant: RuleSet, job: Callable[[str], Job], run: Runner,
                  alternatives: bool = False) -> tuple[Trial, list[tuple[str, str, str, Trial]]]:
    """The variant itself, then each switch of `switched_one_at_a_time`, each searched (side by
    side where the engine can): (the variant's trial, [(rule, from, to, trial), ...])."""
    switches = switched_one_at_a_time(book, variant, alternatives)
    names = [variant.name] + [switched(book, variant, {rule: to}).name for rule, _, to in switches]
    outcomes = run([job(name) for name in names])
    trials = [Trial(name, {}, "searched", out.violated, out) for name, out in zip(names, outcomes)]
    return trials[0], [(rule, old, new, trial) for (rule, old, new), trial in zip(switches, trials[1:])]


def minimal_rule_sets(book: RuleBook, variant: RuleSet, base: RuleSet, job: Callable[[str], Job], run: Runner,
                      replays: Callable[[dict, str], int | None]) -> tuple[list[str], list[Trial]]:
    """The rules on which `variant` and `base` differ, and every subset of them tried, by size
    (each a `Trial`; the rule set is `base` with those rules switched to the variant's choices).
    `replays(trace, name)` is the length of the prefix of a counterexample `trace` (a trace
    document) that violates the property under rule set `name`, None when it does not."""
    rules = [rule.name for rule in book.rules if variant.choices[rule.name] != base.choices[rule.name]]
    holding: list[frozenset] = []
    found: list[Trial] = []
    for size in range(len(rules) + 1):
        level: list = []  # per subset, in order: its Trial, or what to search
        for subset in combinations(rules, size):
            changes = {rule: variant.choices[rule] for rule in subset}
            name = switched(book, base, changes).name
            if any(h <= frozenset(subset) for h in holding):
                level.append(Trial(name, changes, "superset"))
                continue
            replay = next(((t.variant, length) for t in found if t.violated and t.outcome is not None
                           for length in [replays(t.outcome.trace, name)] if length is not None), None)
            if replay is not None:
                level.append(Trial(name, changes, "replayed", True, replayed_from=replay[0],
                                   replayed_length=replay[1]))
            else:
                level.append((name, changes, frozenset(subset)))
        pending = [item for item in level if not isinstance(item, Trial)]
        outcomes = iter(run([job(name) for name, _, _ in pending]))
        for item in level:
            if not isinstance(item, Trial):
                name, changes, subset = item
                out = next(outcomes)
                item = Trial(name, changes, "searched", out.violated, out)
                if not out.violated:
                    holding.append(subset)
            found.append(item)
    return rules, found


def minimal_sets(rules: list[str], trials: list[Trial]) -> list[list[str]]:
    """The minimal holding sets among `trials`: every searched set that holds (its proper
    subsets were all found violated, or it would have been skipped), rules in rule order."""
    return [[r for r in rules if r in t.switched] for t in trials if t.how == "searched" and not t.violated]
