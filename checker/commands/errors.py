"""How a command fails: bad input (exit 2) and interruption (Ctrl-C 130, SIGTERM 143), each one
line on stderr. Cheap to import: the command line raises these while it parses options."""

from __future__ import annotations

import re

import click

EXIT_VIOLATED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


MAX_WORD = 200
"""The most characters of one word (a run without spaces) an error line shows: a path fits, a
10 MB value someone passed is cut to its start."""
MAX_MESSAGE = 1000
"""The most characters of an error line."""


def tidy(message: str) -> str:
    """An error message fit for one terminal line: control characters escaped (a newline or an
    escape sequence quoted from the input cannot break the line or reach the terminal), a word
    longer than MAX_WORD cut to its start, and the whole cut at MAX_MESSAGE characters; each cut
    says how long the text was."""
    from traces.text import one_line

    def cut(text: str, limit: int, keep: int) -> str:
        return text if len(text) <= limit else f"{text[:keep]}... ({len(text):,} characters)"

    message = re.sub(r"\S{%d,}" % (MAX_WORD + 1), lambda word: cut(word.group(), MAX_WORD, 60), one_line(message))
    return cut(message, MAX_MESSAGE, MAX_MESSAGE - 40)


class UserError(click.ClickException):
    """Bad input: a one-line message on stderr and exit code 2 (`tidy`: a newline in a path or
    name it quotes is escaped, an overlong value cut)."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str):
        super().__init__(tidy(message))


class Interrupted(click.ClickException):
    """The user pressed Ctrl-C (exit code 130) or the process got SIGTERM (143): one line on stderr."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self, terminated: bool = False, reached=None, checked=(), checkpoint=None):
        super().__init__(interruption_message(terminated, reached, checked, checkpoint))
        if terminated:
            self.exit_code = EXIT_TERMINATED


def verdicts_so_far(reached=None, checked=()) -> dict[str, list[str]]:
    """The `checked` properties sorted by what an interrupted search knew of them after its last
    complete BFS level `reached` (None: none): invariants violated and not yet violated,
    witnesses reached and not yet reached."""
    violated = list(reached.violated) if reached is not None else []
    found = list(reached.reached) if reached is not None else []
    return {"violated": violated,
            "not_yet_violated": [p.name for p in checked if not p.witness and p.name not in violated],
            "reached": found,
            "not_yet_reached": [p.name for p in checked if p.witness and p.name not in found]}


def interruption_message(terminated: bool, reached=None, checked=(), checkpoint=None) -> str:
    """What a stopped run says: Ctrl-C or SIGTERM; how far the search got (`reached`: the last
    BFS level it completed, if any) and which of the `checked` properties were violated (or,
    for witnesses, reached) by then; and where its checkpoint is (`checkpoint`: (directory,
    depth)), else that nothing was kept."""
    stopped = "terminated (SIGTERM)" if terminated else "interrupted by the user"
    if reached is not None:
        stopped += f" after depth {reached.depth} of the search ({reached.distinct_total:,} distinct states, incomplete"
        for key, names in verdicts_so_far(reached, checked).items():
            if names:
                stopped += f"; {key.replace('_', ' ')}: {', '.join(names)}"
        stopped += ")"
    if checkpoint is not None:
        directory, depth = checkpoint
        return (f"{stopped}; checkpoint at depth {depth} saved in {directory}: "
                f"continue with `replcheck resume {directory}`")
    return f"{stopped}; no result or trace was written"


def interruption_json(terminated: bool, reached=None, checked=(), checkpoint=None) -> dict:
    """The same facts as `interruption_message`, as the JSON object `--json` prints."""
    return {"interrupted": "SIGTERM" if terminated else "SIGINT", "complete": False,
            "depth": reached.depth if reached is not None else None,
            "distinct_states": reached.distinct_total if reached is not None else None,
            **verdicts_so_far(reached, checked),
            "checkpoint": ({"directory": str(checkpoint[0]), "depth": checkpoint[1]} if checkpoint is not None
                           else None)}


LAYOUT_OVERFLOW = "outgrew its layout"
"""The words of the OverflowError a compiled step raises when a state would not fit the packed
layout its bounds sized (`model.kraft.tla.layout`): the CLI turns it into a one-line error."""
