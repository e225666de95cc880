"""docs/benchmark.md's reference training run is what its committed files say: each seed's final
policy scored on the whole suite at full size, aggregated by ``kc benchmark --runs``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kc_env import benchmark
from kc_env.benchmark import runs
from kc_env.commands.benchmark import runs_table

DOCS = Path(__file__).resolve().parents[1] / "docs"
REFERENCE = DOCS / "benchmark" / "reference" / "ppo-5"
SEEDS = sorted(REFERENCE.glob("seed-*"))


def _docs_table() -> str:
    text = (DOCS / "benchmark.md").read_text()
    return re.search(r"<!-- reference -->\n(.*?)\n<!-- /reference -->", text, re.S).group(1)


def test_the_reference_run_has_five_seeds_each_with_its_rows_and_its_final_policys_scorecard():
    assert [p.name for p in SEEDS] == [f"seed-{k}" for k in range(5)]
    for seed in SEEDS:
        rows = runs.read(seed)["rows"]
        assert rows[0]["step"] == 0 and rows[-1]["step"] >= 1_000_000
        card = json.loads((seed / "scorecard.json").read_text())
        assert card["schema"] == benchmark.SCHEMA and card["quick"] is False
        assert [t["id"] for t in card["tasks"]] == [t.id for t in benchmark.suite(card["suite"])]
        assert all(t["shuffles"] == task.shuffles for t, task in zip(card["tasks"], benchmark.suite(card["suite"]), strict=True))
        assert card["agent"] == f"runs/ppo-5/{seed.name}/model"


@pytest.mark.parametrize("given, report", [("scorecard.json", "final-policies.json"), ("", "training.json")])
def test_the_committed_reports_are_the_aggregate_of_the_committed_seeds(given, report):
    baseline = json.loads((DOCS / "benchmark" / "heuristic.json").read_text())
    paths = [str((seed / given) if given else seed) for seed in SEEDS]
    fresh = runs.aggregate(paths, baseline)
    kept = json.loads((REFERENCE / report).read_text())
    assert [Path(r).relative_to(DOCS.parent).as_posix() for r in fresh["runs"]] == kept["runs"]
    for key in ("tasks", "final_steps", "per_task_mean", "iqm", "mean", "groups", "improvement"):
        assert fresh[key] == kept[key], key


def test_the_docs_table_is_the_final_policies_report():
    assert _docs_table() == runs_table(json.loads((REFERENCE / "final-policies.json").read_text()))
