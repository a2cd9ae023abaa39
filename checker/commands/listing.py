"""`replcheck list`: the models, their variants, rules, parameters, invariants and witnesses."""

from __future__ import annotations

from checker.invariant import scope
from invariants.registry import invariants_for
from model.registry import MODELS
from .common import stdout_console


def list_models():
    """`replcheck list` (cli.py declares it)."""
    console = stdout_console()
    for kind in MODELS.values():
        console.print(f"[bold]{kind.name}[/]: {kind.summary}")
        if kind.variants:
            console.print("  variants:")
            for name, meaning in kind.variants.items():
                default = " (default)" if name == kind.default_variant else ""
                console.print(f"    [cyan]{name}[/]{default}: {meaning}")
        if kind.rules is not None:
            list_rules(console, kind.rules)
        console.print("  parameters:")
        for p in kind.params:
            default = ("on" if p.default else "off") if p.kind == "flag" else p.default
            console.print(f"    --{p.name} ({p.domain}, default {default}): {p.help}")
        properties = list(invariants_for(kind.name).values())
        for heading, witness in (("invariants", False), ("witnesses (checked only when named)", True)):
            listed = [p for p in properties if p.witness == witness]
            if listed:
                console.print(f"  {heading}:")
            for prop in listed:
                reads = f" (reads {scope(prop)})" if scope(prop) else ""
                named = getattr(prop, "named_only", "")
                named = f" [dim](checked only when named: {named})[/]" if named else ""
                console.print(f"    [cyan]{prop.name}[/]: {prop.summary}{reads}{named}")



def list_rules(console, book) -> None:
    """Each rule, what it decides, and each choice with what it does and the variants that make
    it (their presets)."""
    console.print("  rules (switch one with --rule RULE=CHOICE; each variant is a preset of them):")
    for rule in book.rules:
        console.print(f"    [cyan]{rule.name}[/]: {rule.decides}")
        for choice, does in rule.choices.items():
            presets = [name for name, choices in book.presets.items() if choices[rule.name] == choice]
            console.print(f"      {choice}: {does} [dim]— {', '.join(presets) or 'no variant'}[/]")
