"""A user's agent that fails (its construction, ``reset``, copying or ``act`` raises, or it picks an
action its mask forbids) stops ``kc benchmark`` and ``kc eval`` with one line naming it and what it
did, never a traceback; SB3's 0-d array action is an action like any other."""

from __future__ import annotations

import numpy as np
import pytest

from kc_env import engine
from kc_env.cli import main
from kc_env.play import AgentError, IllegalAgentAction, check_action, observe
from kc_env.rules import Rules

AGENTS = '''
import threading
import numpy as np
from kc_env.agents import Agent

def first(obs):
    return int(np.flatnonzero(obs["action_mask"])[0])

class Illegal(Agent):
    def act(self, obs): return 10**6
class Raises(Agent):
    def act(self, obs): raise KeyError("boom")
class ReturnsNone(Agent):
    def act(self, obs): return None
class InitRaises(Agent):
    def __init__(self): raise RuntimeError("no agent today")
    def act(self, obs): return 0
class ResetWithoutSeed(Agent):
    def reset(self): pass
    def act(self, obs): return first(obs)
class Locked(Agent):
    def __init__(self): self.lock = threading.Lock()
    def act(self, obs): return first(obs)
class ZeroD(Agent):  # what SB3's model.predict returns for one observation
    def act(self, obs): return np.array(first(obs))
class Scribbler(Agent):  # writes on what it is given
    def act(self, obs):
        action = first(obs)
        obs["action_mask"][:] = 0
        obs["observation"][:] = 0
        return action
'''
TASK = ["--quick", "--workers", "1", "--tasks", "kc/wikihow-2p-vs-heuristic-v1"]


@pytest.fixture
def agents(tmp_path):
    path = tmp_path / "agents.py"
    path.write_text(AGENTS)
    return path


@pytest.mark.parametrize("name, said", [
    ("Illegal", "Illegal(spec='{agents}:Illegal') at seat 0 chose action '1000000' (out of range), which is not legal"),
    ("Raises", "raised KeyError in act: 'boom'"),
    ("InitRaises", "InitRaises: making the agent raised RuntimeError: no agent today"),
    ("ResetWithoutSeed", "ResetWithoutSeed: reset(seed=0) raised TypeError"),
    ("Locked", "Locked: the agent cannot be copied (each seat plays a copy)"),
])
def test_a_failing_agent_is_one_line_naming_it(agents, capsys, name, said):
    assert main(["benchmark", f"{agents}:{name}", *TASK]) == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and last.startswith("kc benchmark: ") and said.format(agents=agents) in last, err


@pytest.mark.parametrize("name, said", [
    ("Raises", "raised KeyError in act: 'boom'"),
    ("Illegal", "chose action '1000000' (out of range), which is not legal"),
    ("ReturnsNone", "chose action 'None' (not an action index), which is not legal"),
])
def test_a_failing_agent_is_one_line_with_json_too(agents, capsys, tmp_path, name, said):
    """A probe of the benchmark: with --json the run first digests the agent's moves on stored
    positions (to tell its partial file from another agent's), and there act was called unguarded:
    a traceback, where the same agent without --json gave one line."""
    assert main(["benchmark", f"{agents}:{name}", *TASK, "--json", str(tmp_path / "card.json")]) == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and last.startswith("kc benchmark: ") and said in last, err


def test_the_abstract_agent_class_is_one_line(capsys):
    assert main(["benchmark", "kc_env.agents:Agent", *TASK]) == 2
    assert "making the agent raised TypeError: Can't instantiate abstract class" in capsys.readouterr().err


def test_kc_eval_names_an_agent_whose_act_raises(agents, capsys):
    assert main(["eval", f"{agents}:Raises", "random", "--deals", "2", "--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip() == f"kc eval: Raises(spec='{agents}:Raises') at seat 1 raised KeyError in act: 'boom'"


@pytest.mark.parametrize("json_too", [False, True])
def test_zero_d_actions_and_an_agent_that_writes_on_its_observation_play_the_task(agents, capsys, tmp_path, json_too):
    """With --json too: the run then first digests the agent's moves on stored positions."""
    out = ["--json", str(tmp_path / "card.json")] if json_too else []
    for name in ("ZeroD", "Scribbler"):
        assert main(["benchmark", f"{agents}:{name}", *TASK, *out]) == 0, capsys.readouterr().err


def test_a_zero_d_integer_array_is_the_action_it_holds_and_other_arrays_are_not():
    state = engine.new_deal(Rules.preset("standard"), 2, seed=1)
    mask = observe(state)["action_mask"]
    legal = int(np.flatnonzero(mask)[0])
    assert check_action(np.array(legal), mask, state) == legal
    assert check_action(np.array(legal, dtype=np.uint16), mask, state) == legal
    for bad in (np.array([legal]), np.array(float(legal)), np.array(True)):
        with pytest.raises(IllegalAgentAction, match="not an action index"):
            check_action(bad, mask, state)
    assert issubclass(IllegalAgentAction, AgentError)


def test_a_module_named_as_the_standard_librarys_says_which_module_it_imported(capsys):
    """The benchmark probe: ``kc benchmark random:Foo`` (a user's ``random.py``) imported Python's
    own ``random`` and said only "random has no Foo"."""
    assert main(["benchmark", "random:Foo", *TASK]) == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "random has no Foo" in last and "Python's standard library" in last and "random.py:Foo" in last, last
