"""docs/benchmark.md's reference training runs are what their committed files say: each seed's
final policy scored on the whole suite at full size, aggregated by ``kc benchmark --runs``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kc_env import benchmark
from kc_env.benchmark import runs
from kc_env.commands.benchmark import runs_table

DOCS = Path(__file__).resolve().parents[1] / "docs"
REFERENCES = DOCS / "benchmark" / "reference"
RUNS = ["ppo-5", "turn-ppo-5", "turn-ppo-64-5"]
TURN_PPO_RUNS = {"turn-ppo-5": (24, 96_000), "turn-ppo-64-5": (30, 60_000)}
"""Each turn-PPO reference run, and its curves' last iteration and the deals played by then."""


def _seeds(name: str) -> list[Path]:
    return sorted((REFERENCES / name).glob("seed-*"))


def _docs_table(name: str) -> str:
    text = (DOCS / "benchmark.md").read_text()
    return re.search(rf"<!-- reference {name} -->\n(.*?)\n<!-- /reference {name} -->", text, re.S).group(1)


def _aggregate_matches(paths: list[str], kept: dict) -> None:
    baseline = json.loads((DOCS / "benchmark" / "heuristic.json").read_text())
    fresh = runs.aggregate(paths, baseline)
    assert [Path(r).relative_to(DOCS.parent).as_posix() for r in fresh["runs"]] == kept["runs"]
    for key in ("tasks", "final_steps", "per_task_mean", "iqm", "mean", "groups", "improvement"):
        assert fresh[key] == kept[key], key


@pytest.mark.parametrize("name", RUNS)
def test_a_reference_run_has_five_seeds_each_with_its_final_policys_full_scorecard(name):
    seeds = _seeds(name)
    assert [p.name for p in seeds] == [f"seed-{k}" for k in range(5)]
    for seed in seeds:
        card = json.loads((seed / "scorecard.json").read_text())
        assert card["schema"] == benchmark.SCHEMA and card["quick"] is False
        assert [t["id"] for t in card["tasks"]] == [t.id for t in benchmark.suite(card["suite"])]
        assert all(t["shuffles"] == task.shuffles for t, task in zip(card["tasks"], benchmark.suite(card["suite"]), strict=True))
        assert card["agent"] == f"runs/{name}/{seed.name}/model"


def test_the_maskable_ppo_runs_rows_reach_the_reference_budget():
    for seed in _seeds("ppo-5"):
        rows = runs.read(seed)["rows"]
        assert rows[0]["step"] == 0 and rows[-1]["step"] >= 1_000_000


@pytest.mark.parametrize("given, report", [("scorecard.json", "final-policies.json"), ("", "training.json")])
def test_the_maskable_ppo_reports_are_the_aggregate_of_the_committed_seeds(given, report):
    paths = [str((seed / given) if given else seed) for seed in _seeds("ppo-5")]
    _aggregate_matches(paths, json.loads((REFERENCES / "ppo-5" / report).read_text()))


@pytest.mark.parametrize("name", TURN_PPO_RUNS)
def test_a_turn_ppo_report_is_the_aggregate_of_the_committed_seeds(name):
    paths = [str(seed / "scorecard.json") for seed in _seeds(name)]
    _aggregate_matches(paths, json.loads((REFERENCES / name / "final-policies.json").read_text()))


@pytest.mark.parametrize("name", RUNS)
def test_the_docs_table_is_the_final_policies_report(name):
    assert _docs_table(name) == runs_table(json.loads((REFERENCES / name / "final-policies.json").read_text()))


def _span(values) -> str:
    return f"{min(values):.3f}-{max(values):.3f}"


@pytest.mark.parametrize("name", TURN_PPO_RUNS)
def test_the_docs_say_what_the_turn_ppo_curves_hold(name):
    last, games = TURN_PPO_RUNS[name]
    curves = [json.loads((seed / "curve.json").read_text()) for seed in _seeds(name)]
    assert all(c[-1]["iteration"] == last and c[-1]["games"] == games for c in curves)
    against_heuristic = {i: [c[i]["heuristic"][0] for c in curves] for i in (0, 6, -1)}
    sentence = (f"from its untrained network's {_span(against_heuristic[0])} to {_span(against_heuristic[6])} by "
                f"iteration 6 and ends at {_span(against_heuristic[-1])} at iteration {last}; against random each "
                f"ends at {_span([c[-1]['random'][0] for c in curves])}")
    assert sentence in " ".join((DOCS / "benchmark.md").read_text().split())
