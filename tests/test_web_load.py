"""The web table under load: 50 games at once, each clicked at random from its own client thread
for a few seconds against a real ``kc serve`` on a loopback port. No request fails, every
refusal is the one expected, and no game is mixed up with another: each game's saved record
holds exactly the moves its own client made, and replays to the table its client last saw. Marked
slow: ``benchmarks/serve_load.py`` with learned and search agents, no failure and flat memory."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")
from web_server import served  # noqa: E402

from kc_env import engine, record  # noqa: E402
from kc_env.web.views import move_text  # noqa: E402

GAMES = 50
SECONDS = 4.0
MAX_REQUESTS = 400
"""Each client's requests are bounded in number as well as in time."""


class Client:
    """One browser tab's worth of requests, over its own connection."""

    def __init__(self, host: str, port: int, seed: int) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=60)
        self.rng = random.Random(seed)
        self.seed = seed
        self.statuses: dict[int, int] = {}
        self.mine: list[str] = []  # the moves this client made and the server took
        self.problems: list[str] = []

    def call(self, method: str, path: str, body=None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body)
        self.conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = self.conn.getresponse()
        answer = json.loads(response.read())
        self.statuses[response.status] = self.statuses.get(response.status, 0) + 1
        return response.status, answer

    def click(self, view: dict) -> dict:
        """One random click: a lit move, a card onto any pile, a pile onto any pile, or end turn."""
        hand = view["table"]["hands"][0]["cards"]
        roll = self.rng.random()
        if roll < 0.5:
            move = self.rng.choice(view["legal"])["name"]
        elif roll < 0.8:
            move = f"play {self.rng.choice(hand)['name']}->{self.rng.choice(engine.PILE_NAMES)}"
        elif roll < 0.95:
            move = f"move {self.rng.choice(engine.PILE_NAMES)}->{self.rng.choice(engine.PILE_NAMES)}"
        else:
            move = "end turn"
        status, answer = self.call("POST", f"/api/games/{view['id']}/move", {"move": move, "at": view["version"]})
        legal = move in {m["name"] for m in view["legal"]}
        if status == 200 and legal:
            self.mine.append(move)
            return answer
        if status == 422 and not legal and answer["error"].startswith(move_text(engine.parse_move(move))):
            return view
        self.problems.append(f"{move!r} ({'legal' if legal else 'illegal'}) got {status}: {answer}")
        return view

    def run(self, deadline: float) -> None:
        status, view = self.call("POST", "/api/games", {"seats": ["you", "random"], "seed": self.seed})
        if status != 201:
            self.problems.append(f"new game: {status} {view}")
            return
        self.game = view["id"]
        for _ in range(MAX_REQUESTS):
            if time.monotonic() > deadline or view["waiting"] == "over":
                break
            if view["setup"]["seed"] != str(self.seed) or view["id"] != self.game:
                self.problems.append(f"a view of another game: {view['id']} seed {view['setup']['seed']}")
                return
            if view["waiting"] == "person":
                view = self.click(view)
            else:
                status, view = self.call("POST", f"/api/games/{self.game}/advance", {"at": view["version"]})
                if status != 200:
                    self.problems.append(f"advance: {status} {view}")
                    return
        self.last = view

    def check(self) -> None:
        """The game's record holds this client's moves, in order, and replays to its last view."""
        self.conn.request("GET", f"/api/games/{self.game}/record")
        rec = record.loads(self.conn.getresponse().read().decode())
        assert isinstance(rec, record.MatchRecord)
        finished = [m for d in rec.deals for m in d.moves]
        live = [] if self.last["table"]["over"] else self.last["log"]  # a finished deal is in the record
        names = [engine.move_name(m) for m in finished] + [e["name"] for e in live]
        seats = self._seats(rec) + [e["seat"] for e in live]
        assert [n for n, s in zip(names, seats, strict=True) if s == 0] == self.mine
        assert self.last["match"]["totals"] == list(record.replay(rec).totals)

    @staticmethod
    def _seats(rec: record.MatchRecord) -> list[int]:
        from kc_env.match import Match

        match, seats = Match(rec.rules, rec.num_players, rec.seed, rec.dealer), []
        for deal in rec.deals:
            state = match.new_deal()
            for move in deal.moves:
                seats.append(state.current_player)
                engine.apply(state, move)
            match.record_deal(state, truncated=deal.truncated, moves=deal.moves)
        return seats


def test_fifty_games_of_random_clicks_at_once_never_fail_or_mix():
    with served() as base:
        host, port = base.removeprefix("http://").rstrip("/").split(":")
        clients = [Client(host, int(port), seed=1000 + i) for i in range(GAMES)]
        deadline = time.monotonic() + SECONDS
        threads = [threading.Thread(target=c.run, args=(deadline,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not any(t.is_alive() for t in threads)
        problems = [p for c in clients for p in c.problems]
        assert not problems, problems[:5]
        for c in clients:
            c.check()
        statuses = {}
        for c in clients:
            for s, n in c.statuses.items():
                statuses[s] = statuses.get(s, 0) + n
        assert set(statuses) <= {200, 201, 422}, statuses
        assert statuses.get(200, 0) > GAMES * 5 and statuses.get(422, 0) > GAMES  # it was played, and refused


@pytest.mark.slow
def test_learned_and_search_agents_at_many_tables_at_once_never_fail_and_memory_stays_flat():
    """``benchmarks/serve_load.py`` for 15 s: ppo, turn-ranking, search and search-4p tables,
    watched and played, advanced and advised by 8 clients at once."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "serve_load.py"
    spec = importlib.util.spec_from_file_location("serve_load", path)
    serve_load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(serve_load)
    figures = serve_load.load_test(clients=8, seconds=15, warmup=3)
    assert figures["alive"] and figures["errors"] == 0, figures["first_errors"]
    assert figures["requests"] > 100
    assert figures["rss_end_mb"] < figures["rss_start_mb"] * 1.15 + 20, figures
