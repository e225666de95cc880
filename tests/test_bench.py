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
