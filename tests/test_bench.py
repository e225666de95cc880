"""``kc bench`` runs every benchmark and reports medians with min and max. No figure is asserted:
the figures come from running the benchmark, not from tests (issue 5)."""

from __future__ import annotations

import json

import pytest

from kc_env.cli import main


def test_bench_reports_every_row_as_json(capsys):
    pytest.importorskip("numba")
    code = main(["bench", "--runs", "2", "--seconds", "0.05", "--batches", "1,8", "--json",
                 "--only", "engine,compiled,aec,single,vector,heuristic", "--rules", "pagat", "-n", "3"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["results"]) == {"engine", "compiled", "aec", "single", "vector_1", "vector_8", "heuristic"}
    for row in report["results"].values():
        assert len(row["runs"]) == 2 and row["min"] <= row["median"] <= row["max"] and row["min"] > 0
    assert report["players"] == 3 and report["rules"] == "pagat"


def test_bench_table_and_refusals(capsys):
    assert main(["bench", "--runs", "1", "--seconds", "0.02", "--only", "engine"]) == 0
    out = capsys.readouterr().out
    assert "engine" in out and "moves/s" in out and "median" in out
    assert main(["bench", "--only", "nothing"]) == 2
    assert "unknown benchmark 'nothing'" in capsys.readouterr().err
    assert main(["bench", "--batches", "a,b"]) == 2


def test_the_ppo_rows_leave_nothing_in_the_temp_folder(capsys, monkeypatch, tmp_path):
    """SB3 gives a model without a logger of its own a fresh ``SB3-<time>`` folder in the temp
    folder at every ``learn`` set-up; kc bench times rollouts only and must not leave one behind."""
    pytest.importorskip("sb3_contrib")
    import tempfile

    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["bench", "--runs", "1", "--seconds", "0.01", "--only", "ppo", "--ppo-envs", "4", "--json"]) == 0
    assert set(json.loads(capsys.readouterr().out)["results"]) == {"ppo_single", "ppo_vector"}
    assert list(tmp_path.glob("SB3-*")) == []  # (torch may keep its one cache folder there: not a run's)
