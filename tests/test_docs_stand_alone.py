"""The repository stands on its own: nothing in it points at the reference folder that sits next
to the checkout on the authors' machines (users never have it), and docs/models/ documents every
model with every name the code registers for it (variants, invariants, actions, parameters)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from invariants.registry import invariants_for
from model.registry import MODELS, build_model

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "models"

# Built from pieces so that this file does not contain what it looks for.
OUTSIDE = ("..", "/", "shared")
FORBIDDEN = ("".join(OUTSIDE), "/".join(("shared", "models")))

# Each model's page in docs/models/.
PAGES = {"spec": "spec.md", "fetch": "fetch.md", "kraft": "kraft.md", "two-phase": "two-phase.md"}


def repository_files() -> list[Path]:
    """Every file git tracks, plus the untracked ones it does not ignore (a new file counts
    before it is committed). Files deleted from the work tree are skipped."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout
    names = sorted({name for name in listed.decode("utf-8", "surrogateescape").split("\0") if name})
    return [ROOT / name for name in names if (ROOT / name).is_file()]


def text_of(path: Path) -> str | None:
    """The file as text, or None for a binary file (a NUL byte, or not UTF-8)."""
    data = path.read_bytes()
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_file_refers_to_the_reference_folder_outside_the_repository():
    found = []
    for path in repository_files():
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if any(needle in line for needle in FORBIDDEN):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "references to a folder outside the repository:\n" + "\n".join(found)


def test_every_model_has_a_page():
    assert set(PAGES) == set(MODELS), "a model was added or removed: give it a page in docs/models/"
    for page in PAGES.values():
        assert (DOCS / page).is_file(), f"docs/models/{page} is missing"


def mentions(text: str, name: str) -> bool:
    """`name` occurs as a whole name: not as part of a longer one (`leader-in-isr` inside
    `leader-in-isr-or-none` does not count)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


def registered_names(model_name: str) -> dict[str, list[str]]:
    """What the code registers for a model, by kind."""
    kind = MODELS[model_name]
    return {
        "variant": list(kind.variants),
        "invariant": list(invariants_for(model_name)),
        "action": list(build_model(model_name).action_kinds()),
        "option": [f"--{p.name}" for p in kind.params],
    }


@pytest.mark.parametrize("model_name", sorted(PAGES))
def test_model_page_names_everything_the_code_registers(model_name):
    text = (DOCS / PAGES[model_name]).read_text(encoding="utf-8")
    missing = [f"{what} {name}" for what, names in registered_names(model_name).items()
               for name in names if not mentions(text, name)]
    assert not missing, f"docs/models/{PAGES[model_name]} never mentions: {', '.join(missing)}"


@pytest.mark.parametrize("model_name", sorted(PAGES))
def test_model_page_links_resolve(model_name):
    text = (DOCS / PAGES[model_name]).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" in target:
            continue
        assert (DOCS / target).resolve().exists(), f"docs/models/{PAGES[model_name]} links to missing {target}"
