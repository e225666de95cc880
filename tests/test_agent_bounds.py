"""An agent spec cannot ask for unbounded work (the reliability report's H-2): a search's
re-deals and candidates, which cost memory and time per decision, are bounded where every spec
is read, so ``kc eval`` refuses them in one line as the web table does."""

from __future__ import annotations

import pytest

from kc_env import agents
from kc_env.agents.search_agent import MAX_CANDIDATES, MAX_REDEALS


@pytest.mark.parametrize(("spec", "says"), [
    (f"search:redeals={MAX_REDEALS + 1}", f"redeals must be a whole number of at least 1 and at most {MAX_REDEALS}"),
    ("search:redeals=3000000", "redeals must be a whole number of at least 1 and at most"),
    (f"search:candidates={MAX_CANDIDATES + 1}", f"candidates must be a whole number of at least 1 and at most "
                                                f"{MAX_CANDIDATES}"),
    ("search:candidates=1000000000000", "candidates must be a whole number of at least 1 and at most"),
])
def test_a_search_beyond_its_bounds_is_refused_in_one_line(spec, says):
    with pytest.raises(ValueError, match="agent spec") as info:
        agents.load(spec)
    assert says in str(info.value) and "\n" not in str(info.value)


def test_a_search_at_its_bounds_is_made():
    agent = agents.load(f"search:redeals={MAX_REDEALS},candidates={MAX_CANDIDATES}")
    assert (agent.redeals, agent.candidates) == (MAX_REDEALS, MAX_CANDIDATES)


def test_kc_eval_refuses_an_unbounded_search_in_one_line(capsys):
    from kc_env.cli import main

    assert main(["eval", "search:redeals=3000000", "random", "--deals", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kc eval: agent spec 'search:redeals=3000000': redeals must be") and err.count("\n") == 1
