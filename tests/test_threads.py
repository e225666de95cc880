"""Torch threads for a run's updates chosen from the free cores when the config leaves
``update_threads`` unset (issue 36 item 1: two threads on a busy 2-core machine made behaviour
cloning 5 to 10 times slower than one), and the cloning bar drawn only on a terminal."""

from __future__ import annotations

import io
import sys

import pytest
from kc_env.training import config as config_mod
from kc_env.training import threads


@pytest.mark.parametrize(("cores", "load", "expected"), [
    (2, 0.0, 1),  # a 2-core machine: one thread, idle or not
    (2, 1.7, 1),
    (1, 3.0, 1),  # never fewer than one
    (4, 0.5, 2),  # 3 whole cores free, one left for the rollouts and the system
    (4, 2.2, 1),
    (8, 0.0, threads.MAX_AUTO),
    (8, 5.5, 1),
    (64, 10.0, threads.MAX_AUTO),
])
def test_choose_takes_the_whole_free_cores_less_one(cores, load, expected):
    assert threads.choose(cores, load) == expected


def test_unset_is_chosen_and_said_once_set_or_kept_is_used_silently(monkeypatch):
    monkeypatch.setattr(threads, "usable_cores", lambda: (2, 0.4))
    said = []
    assert threads.update_threads(None, say=said.append) == 1
    assert said == ["torch: 1 thread for gradient updates (2 cores, load 0.4; set update_threads to choose)"]
    assert threads.update_threads(3, say=said.append) == 3
    assert threads.update_threads(None, kept=2, say=said.append) == 2  # a resumed run keeps its choice
    assert len(said) == 1


def test_usable_cores_reads_this_process():
    cores, load = threads.usable_cores()
    assert cores >= 1 and load >= 0.0


def test_the_default_config_leaves_the_threads_to_the_free_cores():
    default = config_mod.find("default")
    assert config_mod.load(default, "smoke").update_threads is None
    assert config_mod.load(default, "smoke", {"update_threads": 2}).update_threads == 2
    for bad in (0, 2.0, "auto"):
        with pytest.raises(config_mod.ConfigError, match="update_threads must be 1 to 1,024, or null"):
            config_mod.load(default, "smoke", {"update_threads": bad})


def test_the_cloning_bar_is_drawn_on_a_terminal_only(monkeypatch):
    pytest.importorskip("sb3_contrib")
    from kc_env.training.sb3 import train as train_mod

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert train_mod._terminal_bar(True, 10, "behaviour cloning") is None  # a log or a pipe: lines only
    monkeypatch.setattr("sys.stderr", Terminal())
    assert train_mod._terminal_bar(False, 10, "behaviour cloning") is None  # --no-progress
    bar = train_mod._terminal_bar(True, 10, "behaviour cloning")
    bar.update(10)
    bar.close()
    assert "behaviour cloning" in sys.stderr.getvalue()
