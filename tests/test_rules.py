"""Rules as switches: each variant is a preset of rule choices, and any rule can be switched
from the command line (`--rule RULE=CHOICE`, or the rule set's name `kip966+hw-advance=plain`).

The presets are checked against a recording of every variant's counts, depths and shortest
traces (tests/data/variants-recorded.json, by tests/data/record_variants.py; first made when the
rules became switches, again when issue 45 corrected rules against Kafka's code, and for the
variants before 2.2 when issue 66 gave them their own controller), so no
change to the kernel moves a result unnoticed; and a switched rule set that equals another
variant's choices must behave exactly as that variant: the kernel reads nothing but the rules'
choices."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.invariant import applies
from checker.local import explore
from conftest import run_cli
from invariants.registry import select
from model.fetch.rules import RULE_BOOK, RULES, VARIANTS
from model.params import ModelError
from model.registry import MODELS, build_model
from traces.store import load_trace

BEFORE = json.loads((Path(__file__).parent / "data" / "variants-recorded.json").read_text())


def _run(variant: str, bounds: dict, invariants=(), stop_at_first: bool = False) -> dict:
    """Counts, depth and every violated property's shortest trace (its actions), as recorded."""
    model = build_model("fetch", variant, ghost=True, **bounds)
    properties = [p for p in select("fetch", list(invariants)) if applies(p, model)]
    result = explore(model, properties, stop_at_first=stop_at_first, symmetry=True)
    return {"distinct": result.distinct_states, "generated": result.generated_states, "depth": result.depth,
            "complete": result.stopped == "complete",
            "violations": {name: [list(step.action) for step in trace.steps]
                           for name, trace in sorted(result.violations.items())}}


@pytest.mark.parametrize("case", sorted(BEFORE))
def test_every_preset_gives_what_was_recorded(case):
    recorded = BEFORE[case]
    ran = _run(recorded["variant"], recorded["bounds"], recorded["invariants"], recorded["stop_at_first"])
    assert ran == {key: recorded[key] for key in
                                                              ("distinct", "generated", "depth", "complete", "violations")}


def _switched_to(preset: str, target: str) -> str:
    """`preset` with every rule switched to `target`'s choice."""
    ours, theirs = RULE_BOOK.presets[preset], RULE_BOOK.presets[target]
    return preset + "".join(f"+{rule}={theirs[rule]}" for rule in ours if ours[rule] != theirs[rule])


@pytest.mark.parametrize("preset, target", [("kip966", "kafka37"), ("kafka37", "kip903"), ("kip903", "kip320"),
                                            ("kip320", "kip279"), ("kip101", "kip279"), ("hw", "kip966"),
                                            ("kip966", "hw")])
def test_a_preset_switched_to_another_variants_choices_behaves_as_that_variant(preset, target):
    bounds = BEFORE[f"{target} faults"]["bounds"]
    name = _switched_to(preset, target)
    assert build_model("fetch", name).rules == RULE_BOOK.presets[target]
    assert _run(name, bounds) == _run(target, bounds)


def test_each_variant_changes_only_the_rules_its_release_changed():
    """Kafka's history, rule by rule: which release changed what (the KIPs and Jira issues)."""
    changed = {}
    names = list(VARIANTS)
    for before, after in zip(names, names[1:]):
        old, new = RULE_BOOK.presets[before], RULE_BOOK.presets[after]
        changed[after] = {rule for rule in old if old[rule] != new[rule]}
    assert changed == {"kip101": {"truncation"}, "kip279": {"truncation"},
                       "kip320": {"epoch-cache", "fetch-fencing", "bounce", "preferred-replica", "isr-expansion"},
                       "kip903": {"broker-epochs", "leader-epoch-bump"},
                       "kafka37": {"leader-epoch-bump", "hw-advance"}, "kip966": {"elr"}}


def test_a_rule_set_is_named_by_its_preset_and_its_switches_in_rule_order():
    assert build_model("fetch", "kip966+elr=off+hw-advance=plain").variant == "kip966+hw-advance=plain+elr=off"
    assert build_model("fetch", "kip966+elr=on").variant == "kip966"  # a switch to the preset's own choice is none
    assert [rule.name for rule in RULES] == list(RULE_BOOK.presets["hw"])


@pytest.mark.parametrize("variant, words", [
    ("kip966+hw", "RULE=CHOICE"),
    ("kip966+speed=fast", "unknown rule 'speed' for model fetch (choose from truncation,"),
    ("kip966+elr=maybe", "rule elr has no choice 'maybe' (choose from off, on)"),
    ("kip966+elr=on+elr=off", "rule elr is switched twice, to on and to off"),
    ("kip999+elr=on", "unknown variant 'kip999'"),
])
def test_a_bad_rule_set_name_is_a_model_error(variant, words):
    with pytest.raises(ModelError, match=None) as raised:
        build_model("fetch", variant)
    assert words in str(raised.value)


@pytest.mark.parametrize("args, words", [
    (["--variant", "kip966", "--rule", "hw-advance=sometimes"], "rule hw-advance has no choice 'sometimes'"),
    (["--variant", "kip966", "--rule", "speed=fast"], "unknown rule 'speed'"),
    (["--variant", "kip966", "--rule", "elr"], "RULE=CHOICE"),
    (["--variant", "kip966", "--rule", "elr=on", "--rule", "elr=off"], "switched twice"),
    (["--variant", "kip966", "--rule", "elr=off", "--quorum", "majority"],
     "rule broker-epochs=on needs --quorum isr"),
    (["--variant", "kip320", "--rule", "truncation=hw", "--quorum", "majority"], "rule truncation=hw needs --quorum isr"),
    (["--model", "spec", "--variant", "kip320", "--rule", "elr=on"], "model spec has no rules to switch"),
    (["--model", "two-phase", "--rule", "elr=on"], "model two-phase has no rules to switch"),
])
@pytest.mark.parametrize("command", ["check", "simulate"])
def test_a_bad_rule_is_a_one_line_error(command, args, words):
    if "--model" not in args:
        args = ["--model", "fetch", *args]
    result = run_cli(command, *args, "--engine", "local")
    assert result.exit_code == 2, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and words in result.stderr, result.stderr


@pytest.mark.parametrize("command", [["compare", "--variants", "kafka37,kip966"],
                                     ["distinguish", "--variants", "kafka37,kip966", "--invariant", "committed-survives"],
                                     ["sweep", "--variant", "kip966", "--acks", "1,all"]])
def test_every_command_that_takes_a_variant_takes_rules(command):
    bad = run_cli(*command, "--model", "fetch", "--rule", "elr=sometimes", "--engine", "local")
    assert bad.exit_code == 2 and "rule elr has no choice 'sometimes'" in bad.stderr
    good = run_cli(*command, "--model", "fetch", "--rule", "hw-advance=plain", "--max-crashes", "1", "--engine", "local",
                   "--json")
    assert good.exit_code in (0, 1), good.output
    assert "+hw-advance=plain" in good.stdout


def test_distinguish_refuses_two_names_of_one_rule_set():
    # kip966 with elr off is kafka37's rule set under another preset's name
    assert build_model("fetch", "kip966+elr=off").rules == build_model("fetch", "kafka37").rules
    result = run_cli("distinguish", "--model", "fetch", "--variants", "kafka37,kip966+elr=off", "--invariant",
                     "committed-survives", "--engine", "local")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "kafka37 and kip966+elr=off have the same rules" in result.stderr


LRS = ["--replicas", "3", "--min-insync-replicas", "2", "--flush", "async", "--log-size", "2", "--max-records", "2",
       "--max-crashes", "1", "--max-epoch", "3"]


def test_a_trace_found_under_switched_rules_names_them_and_replays_under_them(tmp_path):
    result = run_cli("check", "--model", "fetch", "--variant", "kip966", "--rule", "hw-advance=plain", *LRS,
                     "--invariant", "committed-survives", "--engine", "local", "--trace-dir", str(tmp_path), "--json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["variant"] == "kip966+hw-advance=plain"
    assert data["rules"] == {**RULE_BOOK.presets["kip966"], "hw-advance": "plain"}
    path = Path(data["invariants"]["committed-survives"]["trace_file"])
    saved = json.loads(path.read_text())
    assert saved["variant"] == "kip966+hw-advance=plain" and saved["rules"]["hw-advance"] == "plain"
    trace, model = load_trace(path)  # replays every step through the model of those rules
    assert model.rules["hw-advance"] == "plain" and len(trace) == data["invariants"]["committed-survives"]["trace_length"]
    shown = run_cli("trace", "show", "--explain", str(path))
    assert shown.exit_code == 0
    told = " ".join(shown.stdout.split())
    assert "with rules switched (no Kafka release): hw-advance=plain" in told
    # an ELR member that left the ISR before the record was committed is elected: the strict rule's job
    assert "Cause: an eligible leader replica elected without a committed record (elr-member-without-record)" in told
    assert "under hw-advance=plain the leader advances its HW whatever its ISR's size" in told
    replayed = run_cli("replay", str(path))
    assert replayed.exit_code == 0, replayed.output
    told = " ".join(replayed.stdout.split())
    assert "with rules switched (no Kafka release): hw-advance=plain" in told
    assert f"committed-survives fails at step {len(trace)}" in told
    rendered = run_cli("trace", "render", "--format", "svg", str(path), "-o", str(tmp_path / "t.svg"))
    assert rendered.exit_code == 0 and "hw-advance=plain" in (tmp_path / "t.svg").read_text()
    # the same steps under kip966's own rules are no counterexample: the rules are what the file says
    saved["rules"]["hw-advance"] = "strict-min-isr"
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(saved))
    refused = run_cli("trace", "show", str(tampered))
    assert refused.exit_code == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert "saved under rule hw-advance='strict-min-isr'" in refused.stderr


def test_list_shows_each_rule_its_choices_and_the_variants_that_make_each():
    listed = " ".join(run_cli("list").stdout.split())
    for rule in RULES:
        assert f"{rule.name}: {rule.decides}" in listed
    assert "strict-min-isr: only while the ISR has min.insync.replicas members (KAFKA-15583) — kafka37, kip966" in listed
    assert "failed-first:" in listed and "(KAFKA-7235) — kip320, kip903, kafka37, kip966" in listed


def test_the_elr_invariant_applies_wherever_the_elr_rule_is_on():
    (elr_invariant,) = select("fetch", ["elr-holds-committed"])
    assert applies(elr_invariant, build_model("fetch", "kafka37+elr=on"))
    assert not applies(elr_invariant, build_model("fetch", "kip966+elr=off"))
    assert MODELS["fetch"].meaning("kip966+elr=off").endswith("elr=off: no ELR: the last ISR member stays in the ISR")


def test_a_manifest_entry_may_switch_rules(tmp_path):
    manifest = tmp_path / "m.toml"
    manifest.write_text("""
[[expect]]
model = "fetch"
variant = "kip966"
rules = { hw-advance = "plain" }
bounds = { replicas = 3, min-insync-replicas = 2, flush = "async", log-size = 2, max-records = 2, max-crashes = 1, max-epoch = 3 }
property = "committed-survives"
outcome = "violated"
steps = 7
not-judged = "kip966 with the HW rule from before 3.7, to show the loss its own rule prevents"

[[expect]]
model = "fetch"
variant = "kip966+hw-advance=plain"
bounds = { replicas = 3, min-insync-replicas = 2, flush = "async", log-size = 2, max-records = 2, max-crashes = 1, max-epoch = 3 }
property = "committed-survives"
outcome = "violated"
steps = 7
not-judged = "kip966 with the HW rule from before 3.7, to show the loss its own rule prevents"
""")
    result = run_cli("verify", str(manifest))
    assert result.exit_code == 0, result.output
    told = " ".join(result.stdout.split())
    assert told.count("kip966+hw-advance=plain") == 2 and "2 expectations, 2 as expected, 0 surprises (1 search," in told
    manifest.write_text('[[expect]]\nmodel = "spec"\nrules = { elr = "on" }\nproperty = "strong-isr"\noutcome = "holds"\n')
    refused = run_cli("verify", str(manifest))
    assert refused.exit_code == 2 and "model spec has no rules to switch" in refused.stderr


def test_a_rule_set_switched_again_keeps_one_choice_per_rule():
    from model.rules import switched

    plain = RULE_BOOK.resolve("kip966+hw-advance=plain")
    assert switched(RULE_BOOK, plain, {"hw-advance": "strict-min-isr"}).name == "kip966"
    assert switched(RULE_BOOK, plain, {"elr": "off"}).name == "kip966+hw-advance=plain+elr=off"
    result = run_cli("ablate", "--model", "fetch", "--variant", "kip320+truncation=kip101", "--invariant",
                     "committed-survives", "--alternatives", "--max-crashes", "1", "--engine", "local", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["switches"]
    assert ("truncation", "kip279", "kip320") in {(r["rule"], r["to"], r["variant"]) for r in rows}


BAD_SWITCHES = ["elr=on+truncation=hw", "a+b", "elr=on+", "+elr=on", "elr=on+elr=on", "+"]
"""`--rule` values that are not one RULE=CHOICE: `+` joins switches in a variant's name only."""

RULE_COMMANDS = {
    "check": ["check", "--variant", "kip966"],
    "simulate": ["simulate", "--variant", "kip966", "--walks", "8"],
    "compare": ["compare", "--variants", "kafka37,kip966"],
    "sweep": ["sweep", "--variant", "kip966", "--acks", "1,all"],
    "distinguish": ["distinguish", "--variants", "kafka37,kip966", "--invariant", "committed-survives"],
    "ablate": ["ablate", "--variant", "kip966", "--invariant", "committed-survives"],
}
"""Every command that takes --rule, with what it needs besides; each but distinguish also takes --junit."""


def _manifest_rules(switch: str) -> str:
    """The manifest's `rules` table that says what `--rule switch` says (`a+b` becomes a+b = "on")."""
    rule, _, choice = switch.partition("=")
    return f'{{ "{rule}" = "{choice or "on"}" }}'


@pytest.mark.parametrize("switch", BAD_SWITCHES)
@pytest.mark.parametrize("command", [*RULE_COMMANDS, "verify"])
def test_a_rule_value_of_more_than_one_switch_is_a_one_line_error_on_every_command(tmp_path, command, switch):
    """`--rule elr=on+truncation=hw` (or a manifest's `rules = { elr = "on+truncation=hw" }`) is
    refused before anything runs: one `Error:` line naming the value, exit 2, no traceback, and
    no file where an output was asked for."""
    from hostile import assert_documented_answer, assert_one_error_line, invoke

    out = tmp_path / "out"
    if command == "verify":
        manifest = tmp_path / "m.toml"
        manifest.write_text(f'[[expect]]\nmodel = "fetch"\nvariant = "kip966"\nrules = {_manifest_rules(switch)}\n'
                            'property = "committed-survives"\noutcome = "holds"\n')
        args = ["verify", str(manifest), "--junit", str(out)]
    else:
        output = ["--trace-dir", str(out)] if command == "distinguish" else ["--junit", str(out)]
        args = [*RULE_COMMANDS[command], "--model", "fetch", "--rule", switch, "--engine", "local", *output]
    result = invoke(args)
    assert_documented_answer(result, {2})
    assert_one_error_line(result)
    assert "a rule switch is one RULE=CHOICE" in result.stderr and "'+' joins switches only in a variant's name" \
        in result.stderr, result.stderr
    assert not out.exists()


def test_plus_still_joins_switches_in_a_variants_name():
    """What `--rule` refuses is the variant's own spelling: `--variant kip966+elr=off` and
    `--variant kip966 --rule elr=off` are one rule set."""
    from model.rules import with_switches

    assert with_switches("kip966", ["elr=off"]) == "kip966+elr=off"
    assert build_model("fetch", "kip966+elr=off").variant == build_model("fetch", with_switches("kip966", ["elr=off"])).variant
    with pytest.raises(ModelError, match="a rule switch is one RULE=CHOICE, got 'elr=off\\+truncation=hw'"):
        with_switches("kip966", ["elr=off+truncation=hw"])
