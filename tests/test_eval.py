"""Tournaments (kc_env.tournament) and ``kc eval``: seat rotation, reproducibility, both cores,
the table, ratings, chart and JSON; the agents' ranking on 2,000+ deals (slow)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from kc_env.cli import main
from kc_env.tournament import lineups, run_tournament, wilson


@pytest.mark.parametrize(("k", "n"), [(2, 2), (3, 2), (2, 4), (3, 4), (4, 4), (5, 3), (1, 3)])
def test_every_entry_sits_in_every_seat_equally_often(k, n):
    seatings = lineups(k, n)
    per_seat = Counter((seat, e) for lineup in seatings for seat, e in enumerate(lineup))
    assert all(len(lineup) == n for lineup in seatings)
    assert len(set(per_seat.values())) == 1 and len(per_seat) == k * n


def test_wilson_interval_known_values():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)


def _comparable(result) -> dict:
    data = result.to_dict(episodes=True)
    for key in ("seconds", "workers", "worker_processes"):
        data.pop(key)
    return data


def test_same_seed_same_results_on_both_cores_and_on_one():
    """Deals are seeded by their index, so the number of processes does not change a thing."""
    specs = ["heuristic", "greedy", "random"]
    a = run_tournament(specs, "standard", 2, 48, seed=3, workers=2)
    b = run_tournament(specs, "standard", 2, 48, seed=3, workers=2)
    c = run_tournament(specs, "standard", 2, 48, seed=3, workers=1)
    assert a.worker_pids == 2 and c.worker_pids == 1
    assert _comparable(a) == _comparable(b) == _comparable(c)
    assert _comparable(run_tournament(specs, "standard", 2, 48, seed=4, workers=1)) != _comparable(c)


def test_results_add_up():
    r = run_tournament(["greedy", "random"], "pagat", 3, 30, seed=1, workers=1)
    assert r.episodes == 30 and r.seatings == lineups(2, 3)
    assert sum(s.deals for s in r.stats) == 30 * 3
    wins = sum(len(e.winners) for e in r.results)
    assert sum(s.wins for s in r.stats) == wins <= 30
    for s in r.stats:
        assert s.ci_low <= s.win_rate <= s.ci_high and 0 <= s.blocked_share <= 1
        assert s.ordinal == pytest.approx(s.mu - 3 * s.sigma)
    assert r.pairwise[0][1] + r.pairwise[1][0] == pytest.approx(1.0)


def test_a_win_share_is_a_win_a_split_win_or_an_even_split_of_a_deal_nobody_won():
    """RULES.md 4.8: a blocked deal under ``no_winner`` has no winner, so every seat gets 1/n;
    under ``fewest_cards`` its winner wins it outright; a match won jointly splits the win."""
    from kc_env.tournament import win_share

    assert [win_share(s, (), 4) for s in range(4)] == [0.25] * 4
    assert [win_share(s, (2,), 3) for s in range(3)] == [0.0, 0.0, 1.0]
    assert [win_share(s, (0, 1), 3) for s in range(3)] == [0.5, 0.5, 0.0]
    from kc_env.rules import Rules

    r = run_tournament(["heuristic", "greedy"], Rules.preset("standard", blocked="fewest_cards"), 2, 300,
                       seed=4, workers=1)
    assert any(e.blocked and e.winners for e in r.results), "a blocked deal won by the fewest cards"
    nobody = sum(1 for e in r.results if not e.winners)
    for s in r.stats:
        assert s.share == pytest.approx(s.wins + nobody / 2)


def test_win_shares_split_every_deal_nobody_won():
    """A win counts 1, a deal nobody won (blocked) 1/n to every seat: the shares of all seats sum
    to the number of deals, and an agent's share is its wins plus its blocked deals over n."""
    r = run_tournament(["heuristic", "greedy"], "standard", 2, 200, seed=4, workers=1)
    assert sum(s.share for s in r.stats) == pytest.approx(200)
    nobody = sum(1 for e in r.results if not e.winners)
    assert nobody > 0, "some deals blocked, so the test says something"
    for s in r.stats:
        assert s.win_share == pytest.approx((s.wins + nobody / 2) / s.deals)
        assert s.share_low <= s.win_share <= s.share_high


def test_whole_matches_as_episodes():
    r = run_tournament(["greedy", "random"], "german", 2, 4, seed=2,
                       workers=1, match=True)
    assert r.match and all(e.deals >= 1 for e in r.results)
    assert sum(s.wins for s in r.stats) >= 4  # a match always has a winner (german: first to 5)


def test_kc_eval_prints_the_table_and_writes_json_and_a_chart(tmp_path, capsys):
    out_json, out_png = tmp_path / "eval.json", tmp_path / "eval.png"
    code = main(["eval", "heuristic", "greedy", "random", "--deals", "24", "--seed", "5", "--workers", "2",
                 "--json", str(out_json), "--plot", str(out_png)])
    assert code == 0
    text = capsys.readouterr().out
    for column in ("agent", "deals", "wins", "win rate", "95% interval", "mean penalty", "blocked",
                   "ratings (openskill", "ordinal"):
        assert column in text
    data = json.loads(out_json.read_text())
    assert data["agents"] == ["heuristic", "greedy", "random"] and data["episodes"] == 24
    assert data["worker_processes"] == 2
    assert {"agent", "deals", "wins", "win_rate", "ci_low", "ci_high", "mean_penalty", "blocked_share", "mu",
            "sigma", "ordinal"} <= set(data["table"][0])
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_kc_eval_is_reproducible_from_the_command_line(tmp_path):
    runs = []
    for k in range(2):
        path = tmp_path / f"run{k}.json"
        assert main(["eval", "greedy", "random", "-n", "4", "--deals", "16", "--seed", "9", "--rules", "pagat",
                     "--json", str(path), "--no-progress"]) == 0
        data = json.loads(path.read_text())
        runs.append({k: v for k, v in data.items() if k not in ("seconds", "workers", "worker_processes")})
    assert runs[0] == runs[1]


def test_kc_eval_refuses_an_unknown_agent(capsys):
    assert main(["eval", "heuristic", "grandmaster", "--deals", "2"]) == 2
    assert "unknown agent spec 'grandmaster'" in capsys.readouterr().err


def test_kc_eval_of_a_train_run_folder_points_to_its_model_subfolder(tmp_path, capsys):
    import shutil
    from pathlib import Path

    run = tmp_path / "run"
    shutil.copytree(Path(__file__).resolve().parents[1] / "models" / "turn-ppo-2p", run / "model")
    assert main(["eval", str(run), "heuristic", "--deals", "2"]) == 2
    err = capsys.readouterr().err
    assert f"{run}: no model.json (a kc train run folder: its model is {run / 'model'})" in err
    assert main(["eval", str(tmp_path), "heuristic", "--deals", "2"]) == 2
    assert "kc train run folder" not in capsys.readouterr().err


def test_kc_eval_of_a_class_a_file_lacks_says_the_file_has_no_such_class(tmp_path, capsys):
    path = tmp_path / "my_agent.py"
    path.write_text("from kc_env.agents import Agent\n\n\nclass Mine(Agent):\n    def act(self, obs):\n"
                    "        return 0\n\n\nNotAClass = 3\n")
    assert main(["eval", f"{path}:Nope", "heuristic", "--deals", "2"]) == 2
    assert f"{path} has no Nope (its Agent classes: Mine)" in capsys.readouterr().err
    assert main(["eval", f"{path}:NotAClass", "heuristic", "--deals", "2"]) == 2
    assert "NotAClass is not a class that subclasses kc_env.agents.Agent" in capsys.readouterr().err


def test_kc_eval_refuses_episodes_json_without_json_before_playing(capsys):
    assert main(["eval", "greedy", "random", "--deals", "2", "--episodes-json"]) == 2
    captured = capsys.readouterr()
    assert "--episodes-json adds to the --json file: give --json FILE too" in captured.err
    assert captured.out == ""


def test_kc_eval_markdown_table(capsys):
    assert main(["eval", "greedy", "random", "--deals", "4", "--workers", "1", "--markdown"]) == 0
    assert "| agent | deals | wins | win rate |" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_heuristic_beats_greedy_beats_random_on_2000_deals(players):
    """The README's claim: on 2,000+ deals under standard rules, the 95% intervals are apart."""
    r = run_tournament(["heuristic", "greedy", "random"], "standard", players, 2000, seed=0)
    heuristic, greedy, random_ = r.stats
    assert heuristic.ci_low > greedy.ci_high and greedy.ci_low > random_.ci_high
    assert heuristic.mu > greedy.mu > random_.mu


def test_the_eval_report_names_a_match_in_the_singular():
    """Seen beside the match figures: it said "1/2 of every matche nobody won"."""
    from kc_env.commands.eval import report

    result = run_tournament(["greedy", "random"], deals=2, match=True, workers=1, ratings=False)
    assert "of every match nobody won" in report(result, "standard")


@pytest.mark.parametrize("spec", ["greedy:x", "random:seed=3", "turn-ppo-2p:foo=1"])
def test_a_built_in_agent_given_options_says_it_takes_none(spec, capsys):
    """greedy:x tried to import a module 'greedy'; random:seed=3 and a shipped model with options
    were 'unknown'. Only heuristic:... and search:... take options (random:Foo, a class of the
    importable module random, is tests/test_benchmark_agent_failures.py's)."""
    assert main(["eval", spec, "random", "--deals", "2"]) == 2
    name = spec.split(":")[0]
    assert capsys.readouterr().err.strip() == (f"kc eval: agent spec {spec!r}: {name} takes no options; only "
                                               "heuristic:name=value,... and search:name=value,... do")


def test_a_built_in_name_with_a_class_points_to_the_users_file_of_that_name(tmp_path, monkeypatch, capsys):
    """A late probe: with a greedy.py of the user's in the folder, greedy:MyAgent said only that
    greedy takes no options, where random:Foo points to random.py:Foo."""
    monkeypatch.chdir(tmp_path)
    Path("greedy.py").write_text("from kc_env.agents import GreedyAgent as MyAgent\n")
    assert main(["eval", "greedy:MyAgent", "random", "--deals", "2"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "greedy takes no options; only heuristic:name=value,... and search:name=value,... do "
        "(for your own greedy.py, give its file: greedy.py:MyAgent)")
