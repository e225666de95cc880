"""The agents from several threads at once. numba's threading layer here (workqueue) aborts the
whole process when two threads enter a parallel loop together, and the web table runs agents in
a pool of threads: every loop over the cores is entered one thread at a time
(``compiled.njit_parallel``), so every shipped model and the search agent act from several
threads at once and the process lives (the web table's side is in ``test_web.py``)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

from kc_env import compiled

THREADS_ACTING = textwrap.dedent("""
    import threading
    from kc_env import actions, engine, observation
    from kc_env.agents import load
    from kc_env.agents.policy_model import shipped_models

    def position(players, seed):
        state = engine.new_deal("standard", players, seed=seed)
        return {"observation": observation.encode(state, state.current_player),
                "action_mask": actions.legal_mask(state)}

    def acts(spec):  # a search decision takes most of a second: one each; the others: many
        return 1 if spec.startswith("search") else 40

    jobs = []
    for spec in [*shipped_models(), "search:redeals=4"]:
        for seat in range(2 if spec.startswith("search") else 3):
            agent = load(spec, seed=seat)
            players = getattr(agent, "card", {}).get("num_players", 2)
            views = [position(players, seed) for seed in range(2)]
            if seat == 0:
                agent.act(views[0])  # compiled and warm before the threads start
            jobs.append((agent, views, acts(spec)))

    def play(agent, views, n):
        for i in range(n):
            agent.act(views[i % len(views)])

    threads = [threading.Thread(target=play, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("all acted")
""")


def test_every_shipped_model_and_the_search_act_from_several_threads_at_once():
    done = subprocess.run([sys.executable, "-c", THREADS_ACTING], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "all acted" in done.stdout, (done.returncode, done.stderr[-1500:])


def test_every_parallel_loop_is_compiled_to_be_entered_one_thread_at_a_time():
    """A loop over the cores compiled with plain ``njit(parallel=True)`` would be entered without
    ``PARALLEL_LOCK`` (kc_env and, in a clone, training/)."""
    plain = [f"{path.relative_to(compiled.PACKAGE.parent)}:{n}"
             for root in compiled.ROOTS for path in sorted(root.rglob("*.py")) if path.name != "compiled.py"
             for n, line in enumerate(path.read_text().splitlines(), start=1) if re.search(r"parallel\s*=\s*True", line)]
    assert plain == [], f"use compiled.njit_parallel for these loops: {plain}"
