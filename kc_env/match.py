"""A match: several deals, totals, target, tie-break, dealer rotation, chips (RULES.md 2.4 and 5).

Plain Python over ``engine``; no RL library is imported here::

    match = Match(rules, num_players=3, seed=7)
    while not match.is_over:
        state = match.new_deal()          # dealer and seed of the next deal
        ...                               # engine.apply(state, move) until state.is_over
        match.record_deal(state)          # scores it; totals, is_over, winners follow
    match.winners                         # seats, several when the win is shared

    match = play_match(rules, 3, seed=7, choose=lambda state, moves: moves[0])

Each scoring system is one pure function ``score_<system>(totals, state, rules, pot=0) -> Scored``
(see ``SCORERS``), so every system can be tested alone; ``Match`` only keeps the books.

Choices where RULES.md is silent (each one is tested in ``tests/test_match.py``):

- **Deal seeds.** Deal ``k`` (0-based) of a match with seed ``s`` is shuffled with
  ``deal_seed(s, k)``, the first 63 bits of ``sha256("kc_env/match/{s}/{k}")``: the same match
  seed and rules always give the same deals, on every machine. A match without a seed draws one
  from the system and keeps it (``Match.seed``), so it can still be replayed.
- **Dealer.** The first deal's dealer is ``dealer`` (default seat 0); deal ``k`` is dealt by seat
  ``(dealer + k) % num_players``. Every deal counts, including an extra deal for a tie and a
  ``single`` deal played again after a blocked deal.
- **Penalty tables** (``standard`` ... ``per_card``, ``custom``). A deal adds
  ``engine.deal_penalties``: the winner adds 0, everyone else their hand; a blocked deal with no
  winner adds every hand (RULES.md 4.8, 5.1). After each deal the match is over once some total
  has reached the target and exactly one seat has the lowest total. While the lowest is tied,
  ``extra_deal`` plays one more deal (again and again, until the tie is broken); ``shared``
  ends the match with every seat on the lowest total as a winner.
- **winner_collects.** The deal's winner scores the sum of the others' penalties by the table
  named by ``rules.table``; a blocked deal with no winner scores nothing for anyone. The match
  is over once a total has reached the target; the highest total wins, a tie for highest is
  settled by ``tie_break`` as above.
- **wins.** The deal's winner scores 1; a blocked deal with no winner scores nothing. The first
  seat to reach the target wins. Only one seat scores per deal, so there is never a tie and
  ``tie_break`` is not used.
- **single.** One deal; its winner wins the match (``totals`` is 1 for the winner). A blocked
  deal with no winner: ``extra_deal`` deals again (a new deal, the next dealer), ``shared``
  ends the match with every seat a winner. ``target`` is not used (``Rules`` sets it to None).
- **chips.** ``totals`` are the chips in front of each seat, starting at ``rules.chips``; the
  pot is ``Match.pot``. A deal is settled when it is recorded, in the order the payments fall
  due at the table: (1) every seat antes 1 into the pot; (2) each seat puts 1 more into the pot
  for every turn it ended without playing a card (``GameState.turns_without_play``; a pile move
  alone does not count as playing a card; under ``extra_chip: could_not_play`` only the turns in
  which no card from hand could be played); (3) with ``chips_per_card: to_pot`` every seat
  without the win puts its hand's penalty by ``rules.table`` into the pot; (4) the deal's winner
  takes the whole pot, or, with no winner, the pot stays for the next deal; (5) with
  ``chips_per_card: to_winner``, every other seat pays the winner its hand's penalty. Chips never go below 0: a seat that
  owes more than it has pays what it has and *cannot pay*; the deal is still settled to the end
  and the match is over after it (``Scored.short`` names those seats). The match is also over
  when a seat is left with 0 chips, since it cannot ante the next deal. Then the most chips
  wins and a tie is shared (``tie_break`` is not used). A pot left over when the match ends
  belongs to nobody and does not count. ``target`` is not used by chips.
- **card_chips.** The per-card payment alone (RULES.md 5.2): chips as under ``chips``, but no
  ante, no pot and no extra chip; each seat without the win pays the winner its hand's penalty
  by ``rules.table``; a blocked deal with no winner costs nothing. Over as under ``chips``.
- **Truncation.** ``play_match`` cuts a deal off after ``max_moves`` moves (all moves, end-turn
  moves included) and ends it as a blocked deal (``truncate``): no winner, or under
  ``blocked: fewest_cards`` the single seat with the fewest cards. It is scored like any
  blocked deal and marked ``DealRecord.truncated``. ``max_deals`` stops a match that has not
  ended after that many deals (a ``chips`` match can in principle go on for ever): the match is
  then not over, ``Match.truncated`` is True, ``winners`` is empty and ``leaders`` says who
  leads.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from . import engine
from .engine import GameState, Move
from .rules import PENALTY_TABLES, Rules

Chooser = Callable[[GameState, list[Move]], Move]
"""A move chooser for ``play_match``: ``choose(state, legal_moves) -> move`` (one of the moves)."""

DEFAULT_MAX_MOVES = 1000
"""Moves after which ``play_match`` truncates a deal (random play needs about 100)."""
MOST_MOVES = 2**31 - 1
"""The largest ``max_moves`` an env takes (the compiled tables hold it in an int64 row, and every
count of moves stays far inside it)."""


class MatchError(ValueError):
    """A deal that cannot be recorded in this match, or a match that is already over."""


@dataclass(frozen=True)
class Scored:
    """What one deal did to a match: the result of a ``score_*`` function.

    ``points`` is what each seat gained (chips: the change in its chips, negative for a loss),
    ``totals`` the totals after the deal, ``over`` whether the match is over, ``winners`` its
    winners (empty while it goes on), ``pot`` the chips left in the pot (chips only) and
    ``short`` the seats that could not pay (chips only).
    """

    points: tuple[int, ...]
    totals: tuple[int, ...]
    over: bool
    winners: tuple[int, ...] = ()
    pot: int = 0
    short: tuple[int, ...] = ()


@dataclass(frozen=True)
class DealRecord:
    """One recorded deal of a match (``Match.history``)."""

    number: int  # 0-based deal number in the match
    dealer: int
    seed: int | None
    winner: int | None
    blocked: bool
    truncated: bool
    hands_left: tuple[int, ...]  # cards left in each hand
    penalties: tuple[int, ...]  # engine.deal_penalties by rules.penalty_table()
    scored: Scored
    moves: tuple[Move, ...] | None = None  # the moves of the deal, when known


# -- deal seeds --------------------------------------------------------------------------------

NO_WINNER = -1
"""The winner of a deal nobody won, where a seat number is wanted (the envs' ``info["deal"]["winner"]``,
the padding of ``info["match"]["winners"]``): an int like a seat, so that infos stack into arrays
(Tianshou's buffer, Gymnasium's vector envs)."""


def deal_seed(match_seed: int, deal: int) -> int:
    """The shuffle seed of deal ``deal`` (0-based) of the match with seed ``match_seed``."""
    digest = hashlib.sha256(f"kc_env/match/{match_seed}/{deal}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


# -- who wins ----------------------------------------------------------------------------------

def best_seats(totals: Sequence[int], lowest: bool) -> tuple[int, ...]:
    """The seats with the lowest (or highest) total, in seat order."""
    best = min(totals) if lowest else max(totals)
    return tuple(seat for seat, t in enumerate(totals) if t == best)


def target_outcome(totals: Sequence[int], target: int, tie_break: str, lowest: bool) -> tuple[bool, tuple[int, ...]]:
    """(over, winners) for a match that ends once a total reaches ``target``.

    The lowest (or highest) total wins; a tie for it goes on (``extra_deal``) or is shared.
    """
    if max(totals) < target:
        return False, ()
    best = best_seats(totals, lowest)
    if len(best) > 1 and tie_break == "extra_deal":
        return False, ()
    return True, best


# -- one pure function per scoring system --------------------------------------------------------

def _check_finished(state: GameState) -> None:
    if not state.is_over:
        raise MatchError("the deal is not over yet: only a finished deal can be scored")


def _added(totals: Sequence[int], points: Sequence[int]) -> tuple[int, ...]:
    return tuple(t + p for t, p in zip(totals, points, strict=True))


def score_penalties(totals: Sequence[int], state: GameState, rules: Rules, pot: int = 0) -> Scored:
    """Penalty tables (RULES.md 5.1): each seat adds its hand's penalty, the winner 0; lowest
    total wins once a total reaches the target."""
    _check_finished(state)
    points = tuple(engine.deal_penalties(state, rules.penalty_table()))
    new = _added(totals, points)
    over, winners = target_outcome(new, rules.target, rules.tie_break, lowest=True)
    return Scored(points, new, over, winners)


def score_winner_collects(totals: Sequence[int], state: GameState, rules: Rules, pot: int = 0) -> Scored:
    """winner_collects (RULES.md 5.2): the winner scores the others' penalties by
    ``rules.table``; no winner, no score; highest total wins once it reaches the target."""
    _check_finished(state)
    points = [0] * state.num_players
    if state.winner is not None:
        points[state.winner] = sum(engine.deal_penalties(state, rules.penalty_table()))
    new = _added(totals, points)
    over, winners = target_outcome(new, rules.target, rules.tie_break, lowest=False)
    return Scored(tuple(points), new, over, winners)


def score_wins(totals: Sequence[int], state: GameState, rules: Rules, pot: int = 0) -> Scored:
    """wins (RULES.md 5.2): the deal's winner scores 1; the first to the target wins."""
    _check_finished(state)
    points = tuple(int(seat == state.winner) for seat in range(state.num_players))
    new = _added(totals, points)
    over = max(new) >= rules.target
    return Scored(points, new, over, best_seats(new, lowest=False) if over else ())


def score_single(totals: Sequence[int], state: GameState, rules: Rules, pot: int = 0) -> Scored:
    """single (RULES.md 5.2): the deal's winner wins the match; with no winner the deal is
    played again (``extra_deal``) or every seat shares the win (``shared``)."""
    _check_finished(state)
    points = tuple(int(seat == state.winner) for seat in range(state.num_players))
    new = _added(totals, points)
    if state.winner is not None:
        return Scored(points, new, True, (state.winner,))
    if rules.tie_break == "shared":
        return Scored(points, new, True, tuple(range(state.num_players)))
    return Scored(points, new, False)


def score_chips(totals: Sequence[int], state: GameState, rules: Rules, pot: int = 0) -> Scored:
    """chips (RULES.md 5.2): ante, a chip per turn ended without a play, the winner takes the
    pot (none: it stays), ``chips_per_card`` payments; over when a seat cannot pay or is left
    with none. See the module docstring for the order of payments."""
    _check_finished(state)
    chips = list(totals)
    short: set[int] = set()

    def pay(seat: int, amount: int) -> int:
        paid = min(amount, chips[seat])
        if paid < amount:
            short.add(seat)
        chips[seat] -= paid
        return paid

    for seat in range(state.num_players):
        pot += pay(seat, 1)
    for seat in range(state.num_players):
        pot += pay(seat, state.turns_without_play[seat])
    winner = state.winner
    owed = engine.deal_penalties(state, rules.penalty_table())
    if rules.chips_per_card == "to_pot":
        for seat in range(state.num_players):
            pot += pay(seat, owed[seat])
    if winner is not None:
        chips[winner] += pot
        pot = 0
        if rules.chips_per_card == "to_winner":
            for seat in range(state.num_players):
                chips[winner] += pay(seat, owed[seat])
    return _chips_scored(totals, chips, short, pot)


def _chips_scored(totals: Sequence[int], chips: list[int], short: set[int], pot: int) -> Scored:
    """The books after a chips deal: over when a seat could not pay or has none left."""
    new = tuple(chips)
    over = bool(short) or min(new) == 0
    return Scored(_added(new, [-t for t in totals]), new, over,
                  best_seats(new, lowest=False) if over else (), pot, tuple(sorted(short)))


def score_card_chips(totals: Sequence[int], state: GameState, rules: Rules, pot: int = 0) -> Scored:
    """card_chips (RULES.md 5.2): each seat without the win pays the winner its hand's penalty
    in chips; no ante, no pot. Over as under chips."""
    _check_finished(state)
    chips = list(totals)
    short: set[int] = set()
    if state.winner is not None:
        for seat, owed in enumerate(engine.deal_penalties(state, rules.penalty_table())):
            paid = min(owed, chips[seat])
            if paid < owed:
                short.add(seat)
            chips[seat] -= paid
            chips[state.winner] += paid
    return _chips_scored(totals, chips, short, pot)


Scorer = Callable[[Sequence[int], GameState, Rules, int], Scored]
SCORERS: dict[str, Scorer] = {name: score_penalties for name in (*PENALTY_TABLES, "custom")} | {
    "winner_collects": score_winner_collects,
    "wins": score_wins,
    "single": score_single,
    "chips": score_chips,
    "card_chips": score_card_chips,
}
"""The scoring function of every value of ``Rules.scoring``."""


def starting_totals(rules: Rules, num_players: int) -> tuple[int, ...]:
    """Totals before the first deal: ``rules.chips`` each under chips, else 0."""
    return (rules.chips if rules.plays_for_chips else 0,) * num_players


def score_deal(totals: Sequence[int], state: GameState, rules: Rules, pot: int = 0) -> Scored:
    """Score a finished deal by ``rules.scoring`` (dispatches to the ``score_*`` functions)."""
    return SCORERS[rules.scoring](totals, state, rules, pot)


# -- ending a deal early -------------------------------------------------------------------------

def truncate(state: GameState) -> GameState:
    """End an unfinished deal as blocked (RULES.md 4.8: truncation counts as a blocked deal):
    no winner, or under ``blocked: fewest_cards`` the single seat with the fewest cards."""
    if not state.is_over:
        engine.end_blocked(state)  # the engine's own blocked rule, so the two never differ
    return state


# -- a seat's share of a deal --------------------------------------------------------------------

def deal_winners(state: GameState) -> tuple[int, ...]:
    """The winners of a finished deal: its winner, or none (a deal that ended blocked or cut off
    with no winner)."""
    return () if state.winner is None else (state.winner,)


def win_share(seat: int, winners: Sequence[int], seats: int) -> float:
    """What one deal (or match) adds to ``seat``'s win share: 1 for a lone winner, 1/k for one of
    k winners, 1/``seats`` to every seat when nobody won (a blocked deal), else 0. A fair share
    is 1/``seats``. The one definition: the tournament, ``kc compare``, the benchmark and the
    training evaluation use it; the compiled play-outs' ``playouts.seat_share`` is its twin on
    the kernel's state, held equal to it by tests/test_play_loop.py."""
    if not winners:
        return 1.0 / seats
    return 1.0 / len(winners) if seat in winners else 0.0


# -- the match -----------------------------------------------------------------------------------

@dataclass
class Match:
    """The books of a match: deals, totals, pot, whether it is over and who won.

    ``rules`` may be a ``Rules``, a preset name or a mapping. ``seed`` (None: drawn from the
    system and kept) fixes every deal's shuffle; ``dealer`` deals the first deal.
    """

    rules: Rules
    num_players: int
    seed: int | None = None
    dealer: int = 0
    totals: tuple[int, ...] = field(init=False)
    pot: int = field(init=False, default=0)
    history: list[DealRecord] = field(init=False, default_factory=list, repr=False)
    is_over: bool = field(init=False, default=False)
    winners: list[int] = field(init=False, default_factory=list)
    truncated: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.rules = Rules.coerce(self.rules)
        self.rules.check_players(self.num_players)
        if type(self.dealer) is not int or not 0 <= self.dealer < self.num_players:
            raise ValueError(f"dealer must be a seat 0..{self.num_players - 1}, not {self.dealer!r}")
        if self.seed is None:
            self.seed = random.SystemRandom().randrange(2**63)
        if type(self.seed) is not int:
            raise ValueError(f"the match seed must be a whole number, not {self.seed!r}")
        self.totals = starting_totals(self.rules, self.num_players)

    @property
    def deal_number(self) -> int:
        """The 0-based number of the deal being played (the number of deals recorded so far)."""
        return len(self.history)

    @property
    def next_dealer(self) -> int:
        """The dealer of deal ``deal_number``: one seat left (``+1``) per deal."""
        return (self.dealer + self.deal_number) % self.num_players

    @property
    def next_seed(self) -> int:
        """The shuffle seed of deal ``deal_number``."""
        return deal_seed(self.seed, self.deal_number)

    @property
    def leaders(self) -> list[int]:
        """The seats that would win if the match stopped now (best total by the scoring)."""
        if self.rules.single_deal:
            return list(self.winners)
        return list(best_seats(self.totals, lowest=self.rules.lowest_wins))

    def totals_before(self, deal: int) -> tuple[int, ...]:
        """The totals before deal ``deal`` (0-based, at most ``deal_number``): the starting
        totals before the first, else the totals its previous deal left."""
        if not 0 <= deal <= self.deal_number:
            raise MatchError(f"deal {deal}: the match has recorded {self.deal_number} deal(s)")
        return starting_totals(self.rules, self.num_players) if deal == 0 else self.history[deal - 1].scored.totals

    def new_deal(self) -> GameState:
        """Deal deal ``deal_number`` (the same deal each time it is called until it is recorded)."""
        if self.is_over:
            raise MatchError("the match is over: no more deals")
        return engine.new_deal(self.rules, self.num_players, seed=self.next_seed, dealer=self.next_dealer)

    def record_deal(self, state: GameState, *, truncated: bool = False,
                    moves: Sequence[Move] | None = None) -> DealRecord:
        """Score the finished deal ``state`` and add it to ``history``.

        ``truncated`` marks a deal cut off by a move limit (already ended by ``truncate``);
        ``moves`` keeps its moves for a record. Raises ``MatchError`` when the match is over, the
        deal is not, or the deal was played under other rules or by another number of players.
        """
        if self.is_over:
            raise MatchError("the match is over: no more deals can be recorded")
        _check_finished(state)
        if state.num_players != self.num_players:
            raise MatchError(f"the deal has {state.num_players} players, the match {self.num_players}")
        if state.rules != self.rules:
            raise MatchError("the deal was played under other rules than the match's")
        scored = score_deal(self.totals, state, self.rules, self.pot)
        record = DealRecord(
            number=self.deal_number, dealer=state.dealer, seed=state.seed, winner=state.winner,
            blocked=state.blocked, truncated=truncated, hands_left=tuple(map(len, state.hands)),
            penalties=tuple(engine.deal_penalties(state, self.rules.penalty_table())), scored=scored,
            moves=None if moves is None else tuple(moves),
        )
        self.history.append(record)
        self.totals, self.pot = scored.totals, scored.pot
        self.is_over, self.winners = scored.over, list(scored.winners)
        return record


# -- playing ---------------------------------------------------------------------------------------

def play_deal(state: GameState, choose: Chooser, max_moves: int = DEFAULT_MAX_MOVES) -> tuple[list[Move], bool]:
    """Play ``state`` to its end with ``choose``; returns (moves made, truncated).

    After ``max_moves`` moves of the deal (``state.move_count``) the deal is ended as blocked by
    ``truncate``. ``choose`` gets the live state (it must not change it) and the legal moves.
    """
    moves: list[Move] = []
    while not state.is_over:
        if state.move_count >= max_moves:
            truncate(state)
            return moves, True
        move = choose(state, engine.legal_moves(state))
        engine.apply(state, move)
        moves.append(move)
    return moves, False


def play_match(rules: Rules | str | None, num_players: int, seed: int | None, choose: Chooser, *,
               dealer: int = 0, max_moves: int = DEFAULT_MAX_MOVES, max_deals: int | None = None) -> Match:
    """Play a whole match, every move chosen by ``choose(state, legal_moves)``; returns the Match.

    A deal is truncated (counted as blocked) after ``max_moves`` moves; the match stops after
    ``max_deals`` deals if it has not ended (``Match.truncated``). Each deal keeps its moves.
    """
    match = Match(Rules.coerce(rules), num_players, seed, dealer)
    while not match.is_over:
        if max_deals is not None and match.deal_number >= max_deals:
            match.truncated = True
            break
        state = match.new_deal()
        moves, cut = play_deal(state, choose, max_moves)
        match.record_deal(state, truncated=cut, moves=moves)
    return match


__all__ = [
    "Match", "MatchError", "DealRecord", "Scored", "Chooser", "SCORERS", "DEFAULT_MAX_MOVES",
    "deal_seed", "best_seats", "target_outcome", "starting_totals", "score_deal", "score_penalties",
    "score_winner_collects", "score_wins", "score_single", "score_chips", "truncate", "play_deal",
    "deal_winners", "win_share",
    "play_match",
]
