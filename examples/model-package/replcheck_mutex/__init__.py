"""An example of a replcheck model published by its own package: mutual exclusion between two
processes, with two rules (a flag per process, and Peterson's turn) and three variants.

replcheck finds it through the entry point `mutex = "replcheck_mutex:MODEL"` in the group
`replcheck.models` (see pyproject.toml). This module must stay cheap to import: replcheck loads
it whenever its command line starts, so the model class and its properties are imported only
when asked for (the `build` and `load_*` functions).
"""

from __future__ import annotations

from model.params import Param
from model.registry import ModelKind

PARAMS = (Param("max-entries", 2, 1, 5, "how many times each process may enter the critical section"),)


def _variants() -> dict[str, str]:
    from .rules import MEANINGS

    return dict(MEANINGS)


def _rules():
    from .rules import RULE_BOOK

    return RULE_BOOK


def _properties():
    from .properties import PROPERTIES

    return PROPERTIES


def _build(variant: str, values: dict, ghost: bool):
    from .model import MutexModel

    return MutexModel(variant, **values)


MODEL = ModelKind("mutex", "two processes and a critical section (an example model from another package)", PARAMS,
                  "peterson", _variants, _build, _properties, _rules)
