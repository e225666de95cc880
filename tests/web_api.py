"""The web table's API as its tests drive it (a FastAPI ``TestClient``): a move or an advance
posted at the game's version, and a game played to its end."""

from __future__ import annotations


def post(client, view, what, status=200, **body):
    """POST ``what`` (move, advance, ...) to ``view``'s game at its version; the answer's JSON."""
    response = client.post(f"/api/games/{view['id']}/{what}", json={"at": view["version"], **body})
    assert response.status_code == status, response.text
    return response.json()


def play_out(client, view, rng):
    """Play the game to its end: the person picks random legal moves, the agents advance."""
    while view["waiting"] != "over":
        if view["waiting"] == "person":
            view = post(client, view, "move", action=rng.choice(view["legal"])["action"])
        else:
            view = post(client, view, "advance")
    return view
