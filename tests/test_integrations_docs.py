"""The examples of docs/integrations.md run (as tests/test_docs.py runs docs/environments.md's)
where their stack is installed, and stay short."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_docs import blocks, run

DOC = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
CODE = [body for skip, kind, body in blocks(DOC.read_text()) if kind == "python" and not skip]
STACKS = {"pyspiel": ("pyspiel", "open_spiel"), "rlcard": ("rlcard",), "sb3_contrib": ("sb3_contrib",),
          "torchrl": ("torchrl",), "tianshou": ("tianshou",)}
"""The module each example needs, by the names its code imports."""


@pytest.mark.parametrize("code", CODE, ids=[f"block{i}" for i in range(len(CODE))])
def test_integration_examples_run(code):
    for module, names in STACKS.items():
        if any(f"import {name}" in code or f"from {name}" in code for name in names):
            pytest.importorskip(module)
    run(code)


def test_integration_examples_stay_short():
    assert len(CODE) >= 6 and all(len(code.strip().splitlines()) <= 12 for code in CODE)
