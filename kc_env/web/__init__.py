"""The web table (``kc serve``): play against the agents, or watch them, in a browser.

The server keeps every game (``games``: a live ``Table`` or the ``Replay`` of a saved record)
and plays it with the engine, the agents and the match of ``kc_env``; the page
(``static/``: plain HTML, CSS and JavaScript, card faces drawn as SVG, nothing fetched from
elsewhere) draws what the JSON API (``app``) sends and holds no rule of its own. ``views``
turns states into that JSON, ``advice`` says what an agent would do at a decision, ``store``
keeps the games by id and the agents offered. docs/web.md describes the page and the API.

This package sits at the CLI's layer: it imports the engine, the agents, the match and the
records; nothing below it imports it. Starlette and uvicorn come with the ``web`` extra.
"""
