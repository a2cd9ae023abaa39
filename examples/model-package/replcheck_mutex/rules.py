"""The mutex model's rules and its three variants, each a preset of them."""

from __future__ import annotations

from model.rules import Rule, RuleBook

FLAG = Rule("flag", "how a process tells the other it wants the critical section", {
    "off": "it does not: it waits only while the other is inside",
    "on": "it raises its flag first, and waits while the other's flag is up"})
TURN = Rule("turn", "whether a waiting process may go first when the other gave it the turn", {
    "off": "no turn",
    "on": "each process gives the other the turn before waiting, and may enter when the turn is its own"})

MEANINGS = {
    "naive": "check that the other is outside, then enter (two processes can both pass the check)",
    "flags": "raise a flag, then wait while the other's is up (safe, but both can wait forever)",
    "peterson": "flags and a turn (Peterson's algorithm)",
}
RULE_BOOK = RuleBook("mutex", (FLAG, TURN), {"naive": {"flag": "off", "turn": "off"},
                                             "flags": {"flag": "on", "turn": "off"},
                                             "peterson": {"flag": "on", "turn": "on"}})
