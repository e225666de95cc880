"""docs/benchmark.md's baselines table is what the committed scorecards say, and every scorecard
covers its whole suite at full size."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kc_env import benchmark
from kc_env.commands.benchmark import scorecards_table

DOCS = Path(__file__).resolve().parents[1] / "docs"
CARDS = sorted((DOCS / "benchmark").glob("*.json"))


def test_the_baselines_table_is_made_from_the_committed_scorecards():
    text = (DOCS / "benchmark.md").read_text()
    table = re.search(r"<!-- baselines -->\n(.*?)\n<!-- /baselines -->", text, re.S).group(1)
    assert CARDS and table == scorecards_table([json.loads(p.read_text()) for p in CARDS])


def test_every_baseline_is_a_full_run_of_every_task_and_names_its_command():
    for path in CARDS:
        card = json.loads(path.read_text())
        assert card["schema"] == benchmark.SCHEMA and card["quick"] is False
        assert [t["id"] for t in card["tasks"]] == [t.id for t in benchmark.suite(card["suite"])]
        for t, task in zip(card["tasks"], benchmark.suite(card["suite"]), strict=True):
            assert t["shuffles"] == task.shuffles and t["split"] == task.split
        assert card["command"] == f"kc benchmark {card['agent']} --json docs/benchmark/{path.name}"
        assert f"\nkc benchmark {card['agent']} --json docs/benchmark/{path.name}" in (DOCS / "benchmark.md").read_text()
