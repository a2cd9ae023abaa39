"""docs/reference.md is what the command definitions say (`checker.commands.reference`)."""

from __future__ import annotations

import click

from checker.commands import reference as ref
from cli import main as replcheck


def test_the_reference_in_the_repository_is_what_the_commands_say():
    assert ref.REFERENCE.read_text() == ref.reference(replcheck), \
        "docs/reference.md is out of date: run python -m checker.commands.reference"


def test_every_command_and_subcommand_has_a_section():
    text = ref.reference(replcheck)
    for name in replcheck.list_commands(click.Context(replcheck)):
        assert f"## `replcheck {name}`" in text
    assert "### `replcheck trace show`" in text


def test_a_section_shows_usage_help_and_each_option_with_its_default():
    @click.group()
    def tool():
        """A tool.

        \b
        kept  as
        typed
        """

    @tool.command()
    @click.option("--count", type=int, default=3, show_default=True, help="how many | at most")
    @click.argument("path")
    def run(count, path):
        """Run it
        on PATH."""

    text = ref.reference(tool)
    assert "## `replcheck run`\n\n```\nUsage: replcheck run [OPTIONS] PATH\n```\n\nRun it on PATH.\n" in text
    assert "| `--count INTEGER` | how many \\| at most [default: 3] |" in text
    assert "A tool.\n\n    kept  as\n    typed" in text


def test_check_says_when_the_file_is_out_of_date(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(ref, "REFERENCE", tmp_path / "reference.md")
    assert ref.main(["--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert ref.main([]) == 0
    assert ref.main(["--check"]) == 0


def test_the_reference_does_not_depend_on_what_ran_before():
    """click keeps a command's help option once a context made it: the reference must name it
    as a real invocation does, whether or not one came first."""
    from click.testing import CliRunner

    before = ref.reference(replcheck)
    assert CliRunner().invoke(replcheck, ["check", "--help"]).exit_code == 0
    assert ref.reference(replcheck) == before
    assert "| `-h, --help` | Show this message and exit. |" in before
