"""Load test of the web table with learned and search agents: a real ``kc serve`` on a free
loopback port, ``--clients`` threads each driving its own tables for ``--seconds``.

    python benchmarks/serve_load.py                        # 12 clients for 20 s
    python benchmarks/serve_load.py --clients 24 --seconds 60

Each client sits at a table of one of ``TABLES`` in turn (learned models, ``search`` at a small
setting, the shipped ``search-4p``; watched, or with a person's seat it plays at random), advances
it, asks an agent's advice now and then, views it, and starts a new table when the deal ends.
Prints the requests, the errors (any answer but the expected one, or a failed connection), the
latency's p50/p90/p99 and the server's resident memory at the start (after a warm-up that
makes each kind of table move once, so that every agent is loaded and compiled), after
``--warmup`` seconds and at the end; the exit status is 1 when a request failed or the server
died. Memory flat means the end within a few percent of the start: the server keeps at most 256
games, each small.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

TABLES = (
    ["ppo-standard-2p", "turn-ranking-2p"],
    ["search:redeals=4,candidates=3", "ppo-standard-2p"],
    ["you", "turn-ranking-2p"],
    ["search-4p", "ppo-standard-4p", "heuristic", "random"],
    ["you", "search:redeals=4"],
)
"""The seats of the tables the clients play at, in turn."""
ADVISERS = ("ppo-standard-2p", "heuristic", "turn-ranking-2p")


@contextmanager
def served(*options: str):
    """``kc serve --port 0 --pace 0`` in its own process; yields (process, host, port)."""
    kc = Path(sys.executable).with_name("kc")
    command = [str(kc)] if kc.exists() else [sys.executable, "-m", "kc_env.cli"]
    errors = tempfile.TemporaryFile("w+")  # a pipe left unread could fill and stall the server
    proc = subprocess.Popen([*command, "serve", "--port", "0", "--pace", "0", *options],
                            stdout=subprocess.PIPE, stderr=errors, text=True)
    proc.errors = errors
    try:
        found = re.search(r"http://(127\.0\.0\.1):(\d+)/", proc.stdout.readline())
        if not found:
            proc.kill()
            errors.seek(0)
            raise SystemExit(f"kc serve did not start: {errors.read()[-2000:]}")
        yield proc, found.group(1), int(found.group(2))
    finally:
        errors.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Client:
    """One browser tab's requests over its own connection, each timed."""

    def __init__(self, host: str, port: int, seed: int) -> None:
        self.host, self.port, self.rng, self.seed = host, port, random.Random(seed), seed
        self.conn = http.client.HTTPConnection(host, port, timeout=120)
        self.times: list[float] = []
        self.errors: list[str] = []

    def call(self, method: str, path: str, body=None, expect=(200,)) -> dict | None:
        start = time.monotonic()
        try:
            data = None if body is None else json.dumps(body)
            self.conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
            response = self.conn.getresponse()
            answer, status = json.loads(response.read()), response.status
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.errors.append(f"{method} {path}: {type(exc).__name__}: {exc}")
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
            return None
        finally:
            self.times.append(time.monotonic() - start)
        if status not in expect:
            self.errors.append(f"{method} {path}: {status} {answer}")
            return None
        return answer

    def step(self, view: dict) -> dict | None:
        """One request at a table: a move, an advance, now and then advice or a view."""
        game = f"/api/games/{view['id']}"
        roll = self.rng.random()
        can_advise = view["waiting"] == "person" or (view["mode"] == "watch" and view["waiting"] == "agent")
        if roll < 0.15 and can_advise:
            self.call("GET", f"{game}/advice?spec={self.rng.choice(ADVISERS)}")
            return view
        if roll < 0.25:
            return self.call("GET", game)
        if view["waiting"] == "person":
            move = self.rng.choice(view["legal"])["name"]
            return self.call("POST", f"{game}/move", {"move": move, "at": view["version"]})
        return self.call("POST", f"{game}/advance", {"at": view["version"]})

    def run(self, deadline: float) -> None:
        k = self.seed
        while time.monotonic() < deadline:
            seats = TABLES[k % len(TABLES)]
            k += 1
            view = self.call("POST", "/api/games", {"seats": seats, "seed": k, "one_deal": True}, expect=(201,))
            while view is not None and view["waiting"] != "over" and time.monotonic() < deadline:
                view = self.step(view)


def warm_up(host: str, port: int) -> None:
    """One advance at a table of every kind, one at a time, before the clock starts: the first
    move of each compiled agent loads (or, on a cold cache, compiles for minutes) its code."""
    client = Client(host, port, 0)
    client.conn.timeout = 900
    for k, seats in enumerate(TABLES):
        view = client.call("POST", "/api/games", {"seats": seats, "seed": k, "one_deal": True}, expect=(201,))
        for _ in range(3):
            if view is not None and view["waiting"] == "agent":
                view = client.call("POST", f"/api/games/{view['id']}/advance", {"at": view["version"]})
    if client.errors:
        raise SystemExit(f"the warm-up failed: {client.errors[0]}")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def load_test(clients: int, seconds: float, warmup: float) -> dict:
    """Run the load test (see the module docstring); returns its figures."""
    with served() as (proc, host, port):
        warm_up(host, port)
        start_rss = rss_mb(proc.pid)
        runners = [Client(host, port, seed) for seed in range(clients)]
        deadline = time.monotonic() + seconds
        threads = [threading.Thread(target=c.run, args=(deadline,), daemon=True) for c in runners]
        for t in threads:
            t.start()
        time.sleep(min(warmup, seconds))
        warm_rss = rss_mb(proc.pid)
        for t in threads:
            t.join(seconds + 300)
        alive = proc.poll() is None
        end_rss = rss_mb(proc.pid) if alive else float("nan")
        proc.errors.seek(0)
        server_errors = proc.errors.read()[-2000:]
    times = [t for c in runners for t in c.times]
    errors = [e for c in runners for e in c.errors]
    return {"clients": clients, "seconds": seconds, "requests": len(times), "errors": len(errors),
            "first_errors": errors[:5], "alive": alive, "p50": percentile(times, 0.5), "p90": percentile(times, 0.9),
            "p99": percentile(times, 0.99), "max": max(times, default=float("nan")),
            "rss_start_mb": start_rss, "rss_warm_mb": warm_rss, "rss_end_mb": end_rss, "server_errors": server_errors}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=12, help="client threads, each at its own tables (default 12)")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the clients run (default 20)")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds before the warm memory figure (default 5)")
    args = parser.parse_args(argv)
    r = load_test(args.clients, args.seconds, args.warmup)
    print(f"{r['clients']} clients x {r['seconds']:g} s: {r['requests']:,} requests, {r['errors']} errors, "
          f"server {'alive' if r['alive'] else 'DEAD'}")
    print(f"latency p50 {r['p50']:.3f} s, p90 {r['p90']:.3f} s, p99 {r['p99']:.3f} s, max {r['max']:.3f} s")
    print(f"server RSS: {r['rss_start_mb']:.0f} MB at start, {r['rss_warm_mb']:.0f} MB warm, {r['rss_end_mb']:.0f} MB at the end")
    for line in r["first_errors"]:
        print("error:", line[:300])
    if r["server_errors"].strip():
        print("the server's error output ends:", r["server_errors"], sep="\n")
    return 0 if r["errors"] == 0 and r["alive"] else 1


if __name__ == "__main__":
    sys.exit(main())
