"""`replcheck list`: the models, their variants, rules, parameters, invariants and witnesses."""

from __future__ import annotations

from rich.markup import escape

from checker.invariant import scope
from invariants.registry import invariants_for
from model.registry import BROKEN, MODELS, GuestError, ModelKind, left_out
from traces.text import one_line
from .common import stdout_console


def list_models():
    """`replcheck list` (cli.py declares it). A model package that fails while it is listed is
    left out with one line on stderr (`model.registry.left_out`); every package left out is
    listed last, as broken, with why."""
    console = stdout_console()
    for kind in MODELS.values():
        try:
            lines = model_lines(kind)
        except GuestError as error:
            left_out(error)
            continue
        for line in lines:
            console.print(line)
    if BROKEN:
        console.print("[bold]broken model packages[/] (left out):")
        for package, cause in BROKEN.items():
            console.print(f"  {text(package)}: [red]broken[/]: {text(cause)}")


def text(value) -> str:
    """`value` as `replcheck list` prints it: as text, never as rich markup or a terminal control
    sequence (a model package supplies some of it)."""
    return escape(one_line(str(value)))


def model_lines(kind: ModelKind) -> list[str]:
    """What `replcheck list` says of a model, line by line (rich markup): its variants, rules,
    parameters, invariants and witnesses. Gathered before any is printed, so that a model
    package that fails midway (GuestError) leaves no half of its listing."""
    lines = [f"[bold]{text(kind.name)}[/]: {text(kind.summary)}"]
    if kind.variants:
        lines.append("  variants:")
        for name, meaning in kind.variants.items():
            default = " (default)" if name == kind.default_variant else ""
            lines.append(f"    [cyan]{text(name)}[/]{default}: {text(meaning)}")
    if kind.rules is not None:
        lines += rule_lines(kind.rules)
    lines.append("  parameters:")
    for p in kind.params:
        default = ("on" if p.default else "off") if p.kind == "flag" else p.default
        lines.append(f"    --{text(p.name)} ({text(p.domain)}, default {text(default)}): {text(p.help)}")
    properties = list(invariants_for(kind.name).values())
    for heading, witness in (("invariants", False), ("witnesses (checked only when named)", True)):
        listed = [p for p in properties if p.witness == witness]
        if listed:
            lines.append(f"  {heading}:")
        for prop in listed:
            reads = f" (reads {text(scope(prop))})" if scope(prop) else ""
            named = getattr(prop, "named_only", "")
            named = f" [dim](checked only when named: {text(named)})[/]" if named else ""
            lines.append(f"    [cyan]{text(prop.name)}[/]: {text(prop.summary)}{reads}{named}")
    return lines


def rule_lines(book) -> list[str]:
    """Each rule, what it decides, and each choice with what it does and the variants that make
    it (their presets), line by line (rich markup)."""
    lines = ["  rules (switch one with --rule RULE=CHOICE; each variant is a preset of them):"]
    for rule in book.rules:
        lines.append(f"    [cyan]{text(rule.name)}[/]: {text(rule.decides)}")
        for choice, does in rule.choices.items():
            presets = [name for name, choices in book.presets.items() if choices[rule.name] == choice]
            lines.append(f"      {text(choice)}: {text(does)} [dim]— {text(', '.join(presets) or 'no variant')}[/]")
    return lines
