"""The command reference (docs/reference.md), written from the click definitions in `cli.py`, so
that it says what `replcheck COMMAND --help` says and cannot drift from it.

    python -m checker.commands.reference            # rewrite docs/reference.md
    python -m checker.commands.reference --check    # exit 1 if it is out of date

Each command gets its usage line, its help text and a table of its options (the names, and
the help click prints, defaults and choices included); a group's subcommands follow it. Its
arguments are in the usage line (click gives an argument no help of its own, and its versions
differ on whether an argument has a help record at all).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import click

from checker.atomic_file import write_atomically
from checker.output_kinds import REFERENCE as REFERENCE_KIND

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference.md"
"""Where the reference lives in the repository."""

HEADER = """# Command reference

Generated from the command definitions by `python -m checker.commands.reference`; a test
fails when it differs from what they say. `replcheck COMMAND --help` prints the same. The
guide (docs/README.md) says what each command is for.
"""


def reference(group: click.Group) -> str:
    """The whole reference, as Markdown: every command of `group`, in the order `--help` lists
    them, and every subcommand of a command that is itself a group. Each context is made with
    its command's own settings (`-h` as well as `--help`), as a real invocation makes it: click
    keeps a command's help option once made, so a bare context would depend on what ran first."""
    root = click.Context(group, info_name="replcheck", **group.context_settings)
    parts = [HEADER, _section(group, root, 2, overview=True)]
    parts += _commands(group, root, 2)
    return "\n".join(parts)


def _commands(group: click.Group, ctx: click.Context, level: int) -> list[str]:
    parts = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None or command.hidden:
            continue
        sub = click.Context(command, info_name=name, parent=ctx, **command.context_settings)
        parts.append(_section(command, sub, level))
        if isinstance(command, click.Group):
            parts += _commands(command, sub, level + 1)
    return parts


def _section(command: click.Command, ctx: click.Context, level: int, overview: bool = False) -> str:
    """One command: a heading, its usage, its help and its options."""
    title = "`" + ctx.command_path + "`" if not overview else "`replcheck` (every command)"
    lines = ["#" * level + " " + title, "", "```", ctx.get_usage(), "```", ""]
    text = inspect.cleandoc(command.help or "")
    if text:
        lines += [click.unstyle(_paragraphs(text)), ""]
    rows = [record for param in command.get_params(ctx)
            if isinstance(param, click.Option) and (record := param.get_help_record(ctx))]
    if rows:
        lines += ["| option | meaning |", "|---|---|"]
        lines += [f"| `{_cell(names)}` | {_cell(meaning)} |" for names, meaning in rows]
        lines.append("")
    return "\n".join(lines)


def _paragraphs(text: str) -> str:
    """Help text as click wraps it in a docstring, joined into Markdown paragraphs (a line of
    \\b, click's "keep this block as it is", keeps the block's lines)."""
    out, block, keep = [], [], False
    for line in text.splitlines() + [""]:
        if line.strip() == "\b":
            keep = True
            continue
        if line.strip():
            block.append(line.rstrip() if keep else line.strip())
            continue
        if block:
            out.append("\n".join(f"    {b}" for b in block) if keep else " ".join(block))
        block, keep = [], False
    return "\n\n".join(out)


def _cell(text: str) -> str:
    """Text for one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def main(argv: list[str]) -> int:
    """Rewrite docs/reference.md, or with --check say whether it is up to date (exit 1 if not)."""
    from cli import main as replcheck

    text = reference(replcheck)
    if argv == ["--check"]:
        current = REFERENCE.read_text() if REFERENCE.exists() else ""
        if current != text:
            print(f"{REFERENCE} is out of date: run python -m checker.commands.reference", file=sys.stderr)
            return 1
        return 0
    write_atomically(REFERENCE, text, REFERENCE_KIND)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
