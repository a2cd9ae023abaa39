"""Hostile option values (issue #28): every numeric option answers a value past what the model
or the kernel can take (a seed beyond 64 bits, a non-finite or absurd duration, a count beyond
a 64-bit one) with one error line naming the limit, never a traceback or a run that never ends;
and an option that takes one value, given twice, is refused rather than silently dropped.

Runs stay tiny: two-phase or spec at small bounds, a handful of walks, on the local engine.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from checker.commands.numbers import MAX_COUNT, MAX_SECONDS, MAX_SEED
from hostile import assert_documented_answer, assert_one_error_line, hostile, invoke, no_spark  # noqa: F401

pytestmark = pytest.mark.usefixtures("no_spark")


def whole(text: str) -> int | None:
    """`text` as click reads a whole number, or None."""
    try:
        return int(text)
    except ValueError:
        return None


def seconds(text: str) -> float | None:
    """`text` as a number of seconds, or None."""
    try:
        return float(text)
    except ValueError:
        return None


NUMBERS = ["0", "1", "-1", "3", "2.5", "", " ", "x", "1e3", "0x10", "١", "nan", "inf", "-inf", "1e400", "9" * 5000,
           str(2**63 - 1), str(2**63), str(2**64 - 1), str(2**64), str(2**64 + 1), str(-(2**64)), str(10**30)]


def valid_seed(text: str) -> bool:
    return whole(text) is not None and 0 <= whole(text) <= MAX_SEED


def valid_walks(text: str) -> bool:
    return whole(text) is not None and 1 <= whole(text) <= MAX_COUNT


def valid_seconds(text: str, zero_ok: bool = False) -> bool:
    value = seconds(text)
    return value is not None and math.isfinite(value) and (value >= 0 if zero_ok else value > 0) and value <= MAX_SECONDS


@st.composite
def simulate_line(draw) -> tuple[list[str], bool]:
    """A `simulate` command line with a hostile --seed, --walks, --seconds or --max-depth (or
    several), and whether every value is one the command should take. A run it takes ends
    within a fraction of a second: --walks is small unless --seconds is, and then it is tiny."""
    seed = draw(st.one_of(st.sampled_from(NUMBERS), st.integers(-(2**65), 2**65).map(str)))
    walks = draw(st.sampled_from(["1", "5", "0", "-3", str(MAX_COUNT), str(MAX_COUNT + 1), "9" * 40, "2.0", ""]))
    limit = draw(st.sampled_from([None, "0.05", "0.2", "inf", "nan", "-1", "0", str(MAX_SECONDS + 1), "1e400",
                                  "1e-300", "x", "9" * 400]))
    depth = draw(st.sampled_from(["5", "1", "0", "100001", str(2**64)]))
    args = ["simulate", "--model", "two-phase", "--rms", "2", "--engine", "local", "--seed", seed, "--walks", walks,
            "--max-depth", depth]
    valid = valid_seed(seed) and valid_walks(walks) and 1 <= (whole(depth) or 0) <= 100_000
    if limit is not None:
        args += ["--seconds", limit]
        valid = valid and valid_seconds(limit)
    short = limit in ("0.05", "0.2")
    if not short and (whole(walks) or 0) > 5:  # any run ends soon (on older code too): many walks only with a
        args[args.index("--walks") + 1] = "5"   # short time limit
    return args, valid


@hostile(60)
@given(line=simulate_line())
def test_simulate_takes_exactly_the_values_its_limits_allow(line):
    args, valid = line
    result = invoke(args)
    assert_documented_answer(result, {0, 1, 2})
    assert (result.exit_code != 2) == valid, (args, result.stderr[-500:])
    if not valid:
        assert len(result.stderr.splitlines()[-1]) < 400, result.stderr[-500:]


@st.composite
def search_line(draw) -> tuple[list[str], bool]:
    """A `check` command line with a hostile --max-depth, --checkpoint-every (with a checkpoint
    directory, spec at small bounds) or --partitions, and whether the command should take it."""
    depth = draw(st.sampled_from(["0", "3", "-1", str(MAX_COUNT), str(MAX_COUNT + 1), "9" * 5000, "1.5"]))
    every = draw(st.sampled_from([None, "0", "60", "nan", "inf", "-1", str(MAX_SECONDS), str(MAX_SECONDS + 1), "1e400"]))
    partitions = draw(st.sampled_from([None, "1", "4096", "0", "4097", str(2**64)]))
    args = ["check", "--model", "spec", "--replicas", "2", "--max-records", "1", "--engine", "local",
            "--max-depth", depth]
    valid = whole(depth) is not None and 0 <= whole(depth) <= MAX_COUNT
    if every is not None:
        args += ["--checkpoint-every", every, "--checkpoint-dir", "{ckpt}"]
        valid = valid and valid_seconds(every, zero_ok=True)
    if partitions is not None:
        args += ["--partitions", partitions]
        valid = valid and 1 <= (whole(partitions) or 0) <= 4096
    return args, valid


@hostile(40)
@given(line=search_line())
def test_check_takes_exactly_the_values_its_limits_allow(tmp_path_factory, line):
    args, valid = line
    ckpt = tmp_path_factory.mktemp("ckpt") / "c"
    result = invoke([a.format(ckpt=ckpt) for a in args])
    assert_documented_answer(result, {0, 1, 2})
    assert (result.exit_code != 2) == valid, (args, result.stderr[-500:])


SINGLE = {  # a command line that runs in milliseconds, and single-valued options to give twice, with two values
    "check": (["check", "--model", "two-phase", "--engine", "local"],
              {"--model": ["two-phase", "spec"], "--rms": ["2", "3"], "--max-depth": ["1", "2"], "--engine": ["local"],
               "--symmetry": [], "--json": []}),
    "simulate": (["simulate", "--model", "two-phase", "--engine", "local", "--walks", "3"],
                 {"--seed": ["1", "2"], "--walks": ["3", "4"], "--seconds": ["0.1", "0.2"], "--weights": ["mixed"],
                  "--max-depth": ["5", "6"]}),
    "distinguish": (["distinguish", "--model", "spec", "--variants", "hw,kip320", "--invariant", "weak-isr",
                     "--engine", "local", "--max-records", "1", "--replicas", "2"],
                    {"--invariant": ["weak-isr", "strong-isr"], "--variants": ["hw,kip320", "hw,kip101"],
                     "--explain": []}),
    "compare": (["compare", "--model", "spec", "--variants", "hw", "--engine", "local", "--max-records", "1",
                 "--replicas", "2"], {"--variants": ["hw", "kip320"], "--markdown": [], "--model": ["spec"]}),
}


@hostile(40)
@given(data=st.data())
def test_a_single_valued_option_given_twice_is_refused(data):
    command = data.draw(st.sampled_from(sorted(SINGLE)), label="command")
    base, options = SINGLE[command]
    option = data.draw(st.sampled_from(sorted(options)), label="option")
    values = options[option]
    given_twice = [option] * 2 if not values else [option, data.draw(st.sampled_from(values)), option,
                                                   data.draw(st.sampled_from(values))]
    if option == "--symmetry" and data.draw(st.booleans(), label="negated"):
        given_twice[1] = "--no-symmetry"
    result = invoke([*base, *given_twice])
    assert_documented_answer(result, {2})
    spelled = "--symmetry/--no-symmetry" if option == "--symmetry" else option
    assert f"{spelled} is given " in result.stderr and "it takes one value" in result.stderr, result.stderr


def test_distinguish_refuses_two_invariants_rather_than_checking_the_last():
    result = invoke(["distinguish", "--model", "spec", "--variants", "hw,kip320", "--invariant", "weak-isr",
                     "--invariant", "strong-isr", "--engine", "local"])
    assert_documented_answer(result, {2})
    assert "--invariant is given twice, but it takes one value" in result.stderr


def test_an_option_that_takes_several_values_still_combines():
    result = invoke(["check", "--model", "spec", "--variant", "hw", "--engine", "local", "--invariant", "weak-isr",
                     "--invariant", "strong-isr", "--continue", "--json", "--max-records", "1", "--replicas", "2"])
    assert result.exit_code in (0, 1), result.output
    assert '"weak-isr"' in result.stdout and '"strong-isr"' in result.stdout


def test_a_seed_beyond_64_bits_is_refused_naming_the_limit():
    result = invoke(["simulate", "--model", "spec", "--engine", "local", "--walks", "3", "--seed", str(2**64)])
    assert_documented_answer(result, {2})
    assert_one_error_line(result)
    assert f"to {MAX_SEED:,}" in result.stderr
    edge = invoke(["simulate", "--model", "spec", "--engine", "local", "--walks", "3", "--seed", str(2**64 - 1)])
    assert edge.exit_code in (0, 1), edge.output


@pytest.mark.parametrize("value", ["inf", "nan", "-inf", "1e400", str(MAX_SECONDS + 1)])
def test_a_non_finite_or_absurd_duration_is_refused_naming_the_limit(value):
    result = invoke(["simulate", "--model", "two-phase", "--engine", "local", "--walks", "3", "--seconds", value])
    assert_documented_answer(result, {2})
    assert_one_error_line(result)
    assert f"at most {MAX_SECONDS:,}" in result.stderr


def test_a_ten_megabyte_option_value_is_quoted_by_its_start():
    result = invoke(["check", "--engine", "local", "--model", "x" * 10_000_000])
    assert_one_error_line(result)
    assert len(result.stderr) < 400 and "(10,000,00" in result.stderr


@pytest.mark.parametrize("size", ["9" * 400 + "T", "0", "0.1", "2000T", "1025P"])
def test_an_absurd_memory_budget_is_refused_naming_the_limit(size):
    result = invoke(["check", "--engine", "spark", "--model", "two-phase", "--memory-budget", size])
    assert_documented_answer(result, {2})
    assert "1P" in result.stderr or "not a size" in result.stderr


def mostly(valid: list, bad: list):
    """One of `valid` three times in four, else one of `bad`."""
    return st.one_of(*[st.sampled_from(valid)] * 3, st.sampled_from(bad))


@hostile(30)
@given(data=st.data())
def test_distinguish_answers_hostile_command_lines_as_documented(data):
    """Variant pairs, invariants and bounds, now and then hostile (an escape sequence among
    them): the documented answer, and no control character reaches the terminal."""
    model = data.draw(mostly(["spec"], ["fetch", "two-phase", "", "s" * 5000]), label="model")
    variants = data.draw(mostly(["hw,kip320", "kip101,kip320", " hw , kip320 "],
                                [",", "hw", "hw,hw", "hw,kip320,kip101", "hw,", "\x1b[31m,hw", "hw," + "k" * 5000]),
                         label="variants")
    invariant = data.draw(mostly(["weak-isr", "strong-isr"], ["", "committed-survives", "nope", "weak-isr\n",
                                                              "\x1b]0;title\x07"]), label="invariant")
    replicas = data.draw(mostly(["2"], ["0", "8", "x", "-1"]), label="replicas")
    bounds = ["--replicas", replicas, "--max-records", "1"] + (["--log-size", "1", "--max-epoch", "1"]
                                                               if model == "fetch" else [])
    result = invoke(["distinguish", "--engine", "local", "--model", model, "--variants", variants,
                     "--invariant", invariant, *bounds])
    assert_documented_answer(result, {0, 1, 2})
    assert "\x1b" not in result.output and "\x07" not in result.output
