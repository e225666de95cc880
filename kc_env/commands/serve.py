"""``kc serve``: the web table, a local server for playing and watching the agents in a browser.

    kc serve                    # http://127.0.0.1:8000/ : open it in a browser
    kc serve --port 0 --pace 0  # a free port, agents' moves shown as fast as they come

It binds to 127.0.0.1 unless ``--host`` says otherwise, prints the address it serves on, and
opens nothing by itself. It answers only requests that address it by one of its own names: the
machine's loopback names on a loopback address, the address itself on another, and with a
wildcard (``--host 0.0.0.0``) the machine's name and loopback names; ``--allow-host NAME`` adds
one (the name or address others type). ``kc_env.web`` is the server; docs/web.md describes the
page.
"""

from __future__ import annotations

import argparse
import sys

from .common import UserError, missing_extra, positive_int

HELP = "the web table: play and watch the agents in a browser (a local server)"


def check() -> str | None:
    return missing_extra("web", ("starlette", "uvicorn"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0: any free port)")
    parser.add_argument("--pace", type=_seconds, default=None,
                        help="seconds the page waits between two agent moves (default 0.8)")
    parser.add_argument("--model", action="append", default=[], metavar="FOLDER",
                        help="an exported model folder the seats may hold too (repeatable); shipped models are offered anyway")
    parser.add_argument("--max-games", type=positive_int, default=None, help="games kept at once (default 256)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a host name or address the page may be opened at, besides the address listened on "
                             "(repeatable; e.g. the machine's address on the network with --host 0.0.0.0)")


WILDCARDS = ("0.0.0.0", "::", "")
"""Addresses that listen on every interface of the machine."""


def own_names(host: str, allowed: list[str]) -> list[str]:
    """The names a request may address the server by when it listens on ``host`` (see the module
    docstring), and the ``allowed`` ones."""
    import socket

    from ..web.app import LOOPBACK

    names = [*LOOPBACK, *allowed]
    if host in WILDCARDS:
        names += [socket.gethostname(), socket.getfqdn()]
    elif host not in LOOPBACK:
        names.append(host)
    return names


def shown_address(host: str) -> str:
    """The address printed for a server listening on ``host``: one it answers to (``own_names``),
    the machine's name for a wildcard (0.0.0.0 is refused as a request's host), an IPv6 one bracketed."""
    import socket

    name = socket.gethostname() if host in WILDCARDS else host
    return f"[{name}]" if ":" in name else name


def exposure_note(host: str) -> str | None:
    """The warning printed when the server listens beyond this machine, or None."""
    if host in ("127.0.0.1", "::1", "localhost"):
        return None
    return ("kc serve: note: listening beyond this machine, without any login: anyone who can reach it "
            "can play here, and can also exhaust this host (its cores and memory) with heavy requests")


def _seconds(text: str) -> float:
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text[:40]!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, got {text[:40]!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted (Ctrl-C)."""
    import socket

    import uvicorn

    from ..web.app import DEFAULT_PACE, create_app
    from ..web.store import CAPACITY, Store

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port must be 0 to 65535, not {args.port}")
    try:
        store = Store(models=args.model, capacity=args.max_games or CAPACITY)
    except (ValueError, OSError) as exc:
        raise UserError(f"--model: {' '.join(str(exc).split())[:300]}") from None
    for name in args.allow_host:
        if not name or any(c in name for c in "/ @") or len(name) > 255 or name.count(":") == 1:  # x:80 never matches
            raise UserError(f"--allow-host takes a host name or address (no port), not {name[:60]!r}")
    app = create_app(store, pace=DEFAULT_PACE if args.pace is None else args.pace,
                     hosts=own_names(args.host, args.allow_host))
    try:
        family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((args.host, args.port))
        sock.listen(2048)  # connections wait in the backlog until the server takes them: none is refused
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host} port {args.port}: {exc.strerror or exc}") from None
    host, port = sock.getsockname()[:2]
    print(f"kc serve: the table is at http://{shown_address(host)}:{port}/ (Ctrl-C stops the server)", flush=True)
    note = exposure_note(host)
    if note is not None:
        print(note, file=sys.stderr)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    server.run(sockets=[sock])
    return 0
