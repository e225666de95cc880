"""``kc eval`` with fewer (or more) agents than seats says who fills the seats (the newcomer
report's item 23: ``kc eval heuristic greedy random -n 4 --deals 200`` said 204 deals in its
header and 272 in each agent's row, and only the JSON's ``seatings`` told why)."""

from __future__ import annotations

import pytest

from kc_env.cli import main


@pytest.mark.parametrize(("agents", "players", "line"), [
    (["random", "greedy", "random"], 4, "3 agents at 4 seats: every deal seats each agent, one of them twice (each "
                                        "takes the extra seat in turn); an agent's row counts a deal once for each "
                                        "seat it held."),
    (["random", "greedy", "random"], 5, "3 agents at 5 seats: every deal seats each agent, two of them twice (each "
                                        "takes the extra seats in turn); an agent's row counts a deal once for each "
                                        "seat it held."),
    (["random", "greedy", "random"], 2, "3 agents at 2 seats: each deal seats 2 of them (every pair in turn); an "
                                        "agent's row counts the deals it sat in."),
])
def test_the_report_says_who_fills_the_seats(capsys, agents, players, line):
    assert main(["eval", *agents, "-n", str(players), "--deals", "12", "--workers", "1", "--no-progress"]) == 0
    assert line in capsys.readouterr().out.replace("\n", " ")


def test_as_many_agents_as_seats_need_no_such_line(capsys):
    assert main(["eval", "random", "greedy", "--deals", "4", "--workers", "1", "--no-progress"]) == 0
    assert "seats:" not in capsys.readouterr().out
