"""Checking an env's options: the one-line refusals that the AEC, Gymnasium and vector envs share."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import actions


def keywords_of(init: Callable[..., Any]) -> tuple[str, ...]:
    """The keywords an env's ``__init__`` takes (its own ``self`` and any ``**kwargs`` left out):
    the options its refusals list."""
    parameters = list(inspect.signature(init).parameters.values())[1:]
    return tuple(p.name for p in parameters if p.kind is not p.VAR_KEYWORD)


def refuse_unknown_keywords(called: str, given: Iterable[str], known: Sequence[str],
                            notes: Mapping[str, str] | None = None) -> None:
    """A one-line ``TypeError`` for the first keyword of ``given`` that is not one of ``known``,
    naming ``called`` (the env as the user called it), the keyword (with its ``notes`` entry, if
    any) and ``known``, rather than Python's, which names a class inside."""
    for name in given:
        if name not in known:
            note = (notes or {}).get(name, "")
            raise TypeError(f"{called} got an unexpected keyword argument {name!r}{note}; its options: {', '.join(known)}")


def seat_option(name: str, value: Any, num_players: int) -> int | str:
    """An env's seat option (``dealer``, ``learner_seat``): ``"random"``, or a seat 0..num_players-1
    as an int (``np.int64(1)`` too, never a bool nor a float: ``actions.whole_number``); else a
    one-line ``ValueError``."""
    if isinstance(value, str) and value == "random":
        return value
    seat = actions.whole_number(value)
    if seat is None or not 0 <= seat < num_players:
        raise ValueError(f"{name} must be a seat 0..{num_players - 1} or 'random', not {value!r}")
    return seat
