"""The research notebook stays out of the product (issue 32): ``research/`` holds the one-off
studies, the experiments' configs and the dated log; ``benchmarks/`` holds benchmarks; ``configs/``
holds ``make demo``'s config and the configs of shipped models. Nothing of it is packaged (the
wheel holds ``kc_env`` alone: tests/test_shipped_models.py), but it is kept working: its configs
load and its scripts are lint-clean Python."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kc_env.training import config as config_mod

ROOT = Path(__file__).resolve().parents[1]
RESEARCH = ROOT / "research"
BENCHMARKS = {"compile_time.py", "peers.py", "serve_load.py", "soak.py"}
"""Measurements of the product that stay with it; a study goes to research/."""


@pytest.mark.parametrize("path", sorted((RESEARCH / "configs").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_research_config_loads(path):
    config_mod.load(path)


def test_configs_holds_the_demo_config_and_the_shipped_models_configs():
    """``configs/NAME.yaml`` is ``default`` or the config of ``models/NAME``; a model card that
    names its training command names that config."""
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        if path.stem == "default":
            continue
        card = ROOT / "models" / path.stem / "model.json"
        assert card.is_file(), f"configs/{path.name} is no shipped model's config: move it to research/configs/"
    for card in sorted((ROOT / "models").glob("*/model.json")):
        command = json.loads(card.read_text()).get("command", "")
        named = [word for word in command.split() if word.endswith(".yaml")]
        assert all((ROOT / word).is_file() for word in named), f"{card}: {command}"


def test_benchmarks_holds_benchmarks_only():
    assert {p.name for p in (ROOT / "benchmarks").glob("*.py")} == BENCHMARKS


def test_the_research_scripts_compile_and_nothing_in_the_product_imports_them():
    scripts = sorted(RESEARCH.glob("*.py"))
    assert scripts
    for script in scripts:
        compile(script.read_text(), str(script), "exec")
    for folder in ("kc_env", "training"):
        for module in (ROOT / folder).rglob("*.py"):
            text = module.read_text()
            assert "import research" not in text and "from research" not in text, module


def test_ruff_checks_research_and_finds_nothing():
    """``make lint`` runs ruff over research/ too (the Makefile names it); here on research/ alone."""
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).is_file():
        pytest.skip("ruff is not installed (the dev extra)")
    assert " research " in next(line for line in (ROOT / "Makefile").read_text().splitlines() if "ruff check" in line)
    run = subprocess.run([ruff, "check", "research", "benchmarks"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
