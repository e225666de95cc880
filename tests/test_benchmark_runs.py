"""Training runs as benchmark entries (kc_env.benchmark.runs, kc benchmark --runs): each run's
scores by step, aggregated over seeds with rliable's IQM, intervals and probability of
improvement."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kc_env import benchmark
from kc_env.benchmark import intervals, runs
from kc_env.benchmark.evaluate import Scorecard, TaskScore, shuffle_count
from kc_env.cli import main

TASKS = benchmark.find("kc/standard-2p-vs-heuristic-v1,kc/standard-4p-vs-heuristic-v1")


def card(shares: dict[str, float], quick: bool = True) -> Scorecard:
    """A scorecard whose tasks scored ``shares`` (win shares by task id), over the deals they play."""
    scores = []
    for task in TASKS:
        share, count = shares[task.id], shuffle_count(task, quick)
        figures = {"win_share": share, "low": share - 0.01, "high": share + 0.01, "deals": count * task.num_players,
                   "mean_penalty": 3.0, "blocked_share": 0.1}
        scores.append(TaskScore(task, count, figures, {}, np.full(50, share)))  # as many groups as fast to bootstrap
    return Scorecard("model", "kc-bench-v1", quick, scores)


def make_runs(tmp_path, finals, quick=True):
    folders = []
    for seed, (two, four) in enumerate(finals):
        folder = tmp_path / f"seed-{seed}"
        folder.mkdir()
        runs.record(folder, 1000, card({TASKS[0].id: 0.3, TASKS[1].id: 0.2}, quick))
        runs.record(folder, 2000, card({TASKS[0].id: two, TASKS[1].id: four}, quick))
        folders.append(folder)
    return folders


FINALS = [(0.40, 0.20), (0.50, 0.25), (0.45, 0.30), (0.55, 0.22), (0.35, 0.27)]


def test_the_final_scores_of_the_runs_are_aggregated_as_rliable_does(tmp_path):
    report = runs.aggregate(make_runs(tmp_path, FINALS))
    relative = np.array([[two / 0.5, four / 0.25] for two, four in FINALS])
    assert report["iqm"]["value"] == pytest.approx(intervals.iqm(relative))
    assert report["mean"]["value"] == pytest.approx(relative.mean())
    assert report["iqm"]["low"] <= report["iqm"]["value"] <= report["iqm"]["high"]
    assert [p["step"] for p in report["curve"]] == [1000, 2000]
    assert report["curve"][0]["value"] == pytest.approx(intervals.iqm([[0.6, 0.8]] * 5))


def test_a_step_scored_again_after_a_resume_replaces_its_row(tmp_path):
    (folder,) = make_runs(tmp_path, FINALS[:1])
    runs.record(folder, 2000, card({TASKS[0].id: 0.9, TASKS[1].id: 0.9}))
    rows = runs.read(folder)["rows"]
    assert [r["step"] for r in rows] == [1000, 2000]
    assert rows[-1]["tasks"][TASKS[0].id]["win_share"] == 0.9


def test_quick_and_full_scores_do_not_mix_in_one_run(tmp_path):
    (folder,) = make_runs(tmp_path, FINALS[:1])
    with pytest.raises(runs.RunError, match="cannot take a row"):
        runs.record(folder, 3000, card({TASKS[0].id: 0.5, TASKS[1].id: 0.25}, quick=False))


def test_kc_benchmark_runs_prints_the_iqm_and_the_probability_of_improvement_over_a_baseline(tmp_path, capsys):
    folders = make_runs(tmp_path, FINALS)
    baseline = tmp_path / "heuristic.json"
    baseline.write_text(json.dumps({**card({TASKS[0].id: 0.5, TASKS[1].id: 0.25}).to_dict(), "agent": "heuristic"}))
    out_json = tmp_path / "runs.json"
    assert main(["benchmark", "--runs", *map(str, folders), "--baseline", str(baseline), "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert "IQM relative share" in out and "P(a run beats heuristic)" in out
    report = json.loads(out_json.read_text())
    # 2p: one run of five above 0.5 and one tie (1.5 / 5); 4p: two above 0.25 and one tie (2.5 / 5)
    assert report["improvement"]["value"] == pytest.approx((0.3 + 0.5) / 2)


def test_a_baseline_scored_on_other_deals_is_refused(tmp_path):
    folders = make_runs(tmp_path, FINALS)
    full = card({TASKS[0].id: 0.5, TASKS[1].id: 0.25}, quick=False).to_dict()
    with pytest.raises(runs.RunError, match="score it on the same deals"):
        runs.aggregate(folders, full)


@pytest.mark.parametrize("setup, problem", [
    (lambda tmp: [tmp / "a"], "at least two runs"),
    (lambda tmp: [tmp / "a", tmp / "b"], "no benchmark.json"),
])
def test_runs_without_scores_are_refused_in_one_line(tmp_path, capsys, setup, problem):
    for folder in setup(tmp_path):
        folder.mkdir()
    assert main(["benchmark", "--runs", *map(str, setup(tmp_path))]) == 2
    assert problem in capsys.readouterr().err


def test_kc_benchmark_table_puts_scorecards_side_by_side(tmp_path, capsys):
    paths = []
    for agent, share in (("a", 0.6), ("b", 0.4)):
        path = tmp_path / f"{agent}.json"
        path.write_text(json.dumps({**card({TASKS[0].id: share, TASKS[1].id: share / 2}).to_dict(), "agent": agent}))
        paths.append(str(path))
    assert main(["benchmark", "--table", *paths]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "| task | `a` | `b` |"
    assert f"| {TASKS[0].id} | 0.600 [0.590, 0.610] | 0.400 [0.390, 0.410] |" in lines
    assert any(line.startswith("| IQM relative share: all |") for line in lines)


def test_each_track_is_aggregated_over_the_runs_apart(tmp_path):
    report = runs.aggregate(make_runs(tmp_path, FINALS))
    # standard rules at 2 and 4 seats are also the rule-generalisation track's train tables
    assert list(report["groups"]) == ["head-to-head", "multi-player", "rule-generalisation",
                                      "rule-generalisation/train"]
    assert report["groups"]["multi-player"]["tasks"] == [TASKS[1].id]
    fours = np.array([[four / 0.25] for _, four in FINALS])
    assert report["groups"]["multi-player"]["iqm"]["value"] == pytest.approx(intervals.iqm(fours))


def final_scorecards(tmp_path, finals):
    paths = []
    for seed, (two, four) in enumerate(finals):
        path = tmp_path / f"seed-{seed}.json"
        path.write_text(json.dumps(card({TASKS[0].id: two, TASKS[1].id: four}, quick=False).to_dict()))
        paths.append(path)
    return paths


def test_scorecards_of_the_final_policies_aggregate_as_the_runs_last_rows_do(tmp_path):
    """A run scored at other tables than its own comes as its final policy's scorecard."""
    from_folders = runs.aggregate(make_runs(tmp_path, FINALS))
    from_cards = runs.aggregate(final_scorecards(tmp_path, FINALS))
    assert from_cards["iqm"] == from_folders["iqm"]
    assert from_cards["groups"] == from_folders["groups"]
    assert from_cards["final_steps"] == [None] * 5
    assert from_cards["curve"] == []


def test_run_folders_and_scorecards_do_not_mix(tmp_path):
    folders = make_runs(tmp_path, FINALS[:2], quick=False)  # the deal counts of final_scorecards
    cards = final_scorecards(tmp_path, FINALS[:2])
    with pytest.raises(runs.RunError, match="not both"):
        runs.aggregate([folders[0], cards[1]])


def test_kc_benchmark_runs_over_scorecards_prints_each_track_and_refuses_a_curve(tmp_path, capsys):
    paths = [str(p) for p in final_scorecards(tmp_path, FINALS)]
    assert main(["benchmark", "--runs", *paths]) == 0
    out = capsys.readouterr().out
    assert "final policies' scorecards" in out
    assert "multi-player (1 task(s)): IQM" in out
    assert main(["benchmark", "--runs", *paths, "--plot", str(tmp_path / "c.png")]) == 2
    assert "no curve" in capsys.readouterr().err


def test_a_file_that_is_not_a_scorecard_is_refused_in_one_line(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text('{"schema": "something else"}')
    with pytest.raises(runs.RunError, match="not a run folder nor a kc-bench-scorecard/1 scorecard"):
        runs.aggregate([path, path])


def test_kc_benchmark_runs_md_writes_a_row_for_all_tasks_and_each_track(tmp_path):
    paths = [str(p) for p in final_scorecards(tmp_path, FINALS)]
    md = tmp_path / "runs.md"
    assert main(["benchmark", "--runs", *paths, "--md", str(md)]) == 0
    lines = md.read_text().splitlines()
    assert lines[0] == "| track | tasks | IQM relative share [95%] | mean [95%] |"
    report = runs.aggregate(paths)
    assert [line.split(" | ")[0].lstrip("| ") for line in lines[2:]] == ["all", *report["groups"]]
    iqm = report["groups"]["multi-player"]["iqm"]
    assert f"| {iqm['value']:.3f} [{iqm['low']:.3f}, {iqm['high']:.3f}] |" in md.read_text()


@pytest.mark.parametrize("lacking", [0, 1])
def test_runs_scored_on_other_tasks_are_refused_naming_the_run_and_the_task(tmp_path, capsys, lacking):
    """A probe of the benchmark: a run without a task the others scored was aggregated over the
    tasks every run had, without a word (a figure over fewer tasks than the scorecards hold)."""
    paths = final_scorecards(tmp_path, FINALS[:3])
    two, four = FINALS[lacking]
    short = card({TASKS[0].id: two, TASKS[1].id: four}, quick=False)
    short.scores = short.scores[:1]  # a scorecard of one task, its aggregates made of that task alone
    paths[lacking].write_text(json.dumps(short.to_dict()))
    assert main(["benchmark", "--runs", *map(str, paths)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1, captured.err
    other = paths[1 - lacking]
    assert f"{paths[lacking]} has no score on {TASKS[1].id}, which {other} has" in captured.err, captured.err
