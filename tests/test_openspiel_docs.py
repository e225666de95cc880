"""The OpenSpiel examples of docs/integrations.md run (as tests/test_docs.py runs
docs/environments.md's), and stay short."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

from test_docs import blocks, run  # noqa: E402

DOC = Path(__file__).resolve().parent.parent / "docs" / "integrations.md"
CODE = [body for skip, kind, body in blocks(DOC.read_text()) if kind == "python" and not skip]


@pytest.mark.parametrize("code", CODE, ids=[f"block{i}" for i in range(len(CODE))])
def test_integration_examples_run(code):
    run(code)


def test_integration_examples_stay_short():
    assert len(CODE) >= 5 and all(len(code.strip().splitlines()) <= 12 for code in CODE)
