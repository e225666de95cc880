"""The vector env against the reference: same seeds and actions, identical observations, masks,
rewards and endings (issue 5).

- ``test_kernel_equals_reference``: deals over every preset, 2 to 6 players and random overrides
  of every field of ``Rules`` (``rule_fuzz.random_rules``, which derives them from ``Rules``
  itself: ``test_the_fuzzer_draws_every_field_of_rules``), both reward kinds, short and long
  truncation, are played
  with random legal actions through the PettingZoo AEC env (``kings_corner_v0.raw_env``) and the
  compiled kernel (``kc_env.vector.VecGame``) side by side. Compared at every move: the mask and
  observation of the seat to act; at the end: terminations, truncations, every seat's reward and
  observation, and the whole state (piles, hands, stock, flags, the random generator). The deal
  itself is compared twice: copied from the engine, and dealt by the kernel from the same seed.
  The kernel's rewards (its compiled ``seat_reward``) must be ``kc_env.rewards.deal_rewards``.
- ``test_vec_env_equals_reference``: ``KingsCornerVecEnv`` with its opponents inside is replayed
  move by move through the AEC env: every learner observation and mask, the reward, the terminal
  observation and the truncation flag must match.

The default run plays 1,000 deals; ``-m slow`` plays 10,000 (``test_kernel_equals_reference_10k``).
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("numba")

from rule_fuzz import FIELDS, FREE, random_rules  # noqa: E402

from kc_env import GAME_INFO, PRESETS, Rules, actions, agents, engine, kings_corner_v0, observation, rewards  # noqa: E402
from kc_env.rules import CHOICES  # noqa: E402
from kc_env.vector import VecGame  # noqa: E402
from kc_env.vector import kernel as K  # noqa: E402
from kc_env.vector.game import rules_row  # noqa: E402
from kc_env.wrappers import ClassicWrapper  # noqa: E402

PRESET_NAMES = sorted(PRESETS)
MAX_MOVES = GAME_INFO.default_max_moves
BATCH = 64
JOKER_PLAYS = range(actions.PLAY_OFFSET + 52 * actions.NUM_PILES, actions.MOVE_OFFSET)
PILE_MOVES = range(actions.MOVE_OFFSET, actions.END_TURN_ACTION)


def deal_config(k: int) -> tuple[Rules, int, str, int]:
    """Deal ``k``'s rules (a preset, then each field of ``Rules`` overridden with probability
    1/2), players, reward kind and max_moves. Every preset and player count comes round every 35
    deals. One deal in four is a *rare-structures* deal (see ``biased``): on top of the random
    overrides, jokers, mostly same-suit corners and partial moves, bigger hands."""
    rng = random.Random(1000 + k)
    preset = PRESET_NAMES[k % len(PRESET_NAMES)]
    players = range(GAME_INFO.min_num_players, GAME_INFO.max_num_players + 1)
    n = players[(k // len(PRESET_NAMES)) % len(players)]
    if biased(k):
        rules = random_rules(rng, preset).replace(
            jokers=2, corner_build=rng.choice(["same_suit", "same_suit", "alternate"]),
            pile_moves=rng.choice(["partial", "partial", "whole"]), clear_complete_piles=rng.random() < 0.3,
            hand_size=rng.choice([7, 10, 12]))
    elif k % 5:  # one deal in five plays the preset as it is
        rules = random_rules(rng, preset)
    else:
        rules = Rules.preset(preset)
    while n * rules.hand_size + 4 > rules.deck_size:
        rules = rules.replace(hand_size=rules.hand_size - 1)
    reward = rng.choice(rewards.REWARDS) if rng.random() < 0.6 else rewards.REWARDS[0]  # every kind, the default most
    max_moves = rng.choice([40, 200]) if rng.random() < 0.1 else 300 if biased(k) else MAX_MOVES
    return rules, n, reward, max_moves


def biased(k: int) -> bool:
    """Whether deal ``k`` is played by a policy that seeks rare structures: it favours joker plays
    (x8) and pile moves (x5) and seldom ends its turn (x0.2), so jokers travel between piles, and
    land on joker-king same-suit corners, far more often than under uniform play."""
    return k % 4 == 3


def comparable(state: engine.GameState) -> tuple:
    """``snapshot()`` with hands sorted (the kernel keeps hands as sets) and without the chips
    counter ``turns_without_play`` (a match's business, not a deal env's)."""
    snap = list(state.snapshot())
    snap[4] = tuple(tuple(sorted(h)) for h in snap[4])
    snap[15] = None
    return tuple(snap)


class Reference:
    """One deal in the PettingZoo AEC env, with the kernel's copy in game ``b``."""

    def __init__(self, k: int, game: VecGame, b: int) -> None:
        self.k, self.b = k, b
        self.rules, self.n, self.reward, self.max_moves = deal_config(k)
        self.aec = kings_corner_v0.engine_env(rules=self.rules, num_players=self.n, reward=self.reward,
                                           max_moves=self.max_moves)
        self.aec.reset(seed=k)
        state = self.aec.game
        game.deal([b], self.rules, self.n, [state.seed], [state.dealer], self.max_moves, self.reward)
        assert comparable(game.to_state(b)) == comparable(state), self.where("the kernel's deal")
        game.load(b, state, self.max_moves, self.reward)
        self.rng = random.Random(k)
        self.biased = biased(k)
        self.moves = 0

    def where(self, what: str) -> str:
        return (f"{what} differs: deal {self.k} ({self.rules.to_dict()}, {self.n} players, "
                f"reward {self.reward}, max_moves {self.max_moves}) after {self.moves} moves\n"
                + engine.to_text(self.aec.game))

    @property
    def done(self) -> bool:
        agent = self.aec.agent_selection
        return self.aec.terminations[agent] or self.aec.truncations[agent]

    def check_turn(self, mask: np.ndarray, obs: np.ndarray) -> int:
        """Compare the kernel's mask and observation of the seat to act; return a random legal action."""
        ref = self.aec.observe(self.aec.agent_selection)
        assert np.array_equal(ref["action_mask"], mask), self.where(
            f"the mask (reference {np.flatnonzero(ref['action_mask'])}, kernel {np.flatnonzero(mask)})")
        assert np.array_equal(ref["observation"], obs), self.where(
            f"the observation at {np.flatnonzero(ref['observation'] != obs)}")
        legal = np.flatnonzero(mask)
        if self.biased:
            weights = [8.0 if a in JOKER_PLAYS else 5.0 if a in PILE_MOVES else 0.2 if a == actions.END_TURN_ACTION
                       else 1.0 for a in legal]
            return int(self.rng.choices(legal.tolist(), weights)[0])
        return int(legal[self.rng.randrange(len(legal))])

    def step(self, action: int) -> None:
        self.aec.step(action)
        self.moves += 1

    def check_end(self, game: VecGame) -> None:
        aec, b = self.aec, self.b
        agents = aec.possible_agents
        assert game.is_over(b) == all(aec.terminations.values()), self.where("the termination")
        assert game.truncated(b) == all(aec.truncations.values()), self.where("the truncation")
        assert game.rewards(b) == [aec.rewards[a] for a in agents], self.where(
            f"the rewards ({[aec.rewards[a] for a in agents]} vs {game.rewards(b)})")
        assert game.rewards(b) == rewards.deal_rewards(self.reward, aec.game, game.truncated(b)), self.where(
            "the kernel's seat_reward and kc_env.rewards")
        assert game.winner(b) == aec.game.winner, self.where("the winner")
        obs = game.observe([b] * self.n, list(range(self.n)))
        for seat, agent in enumerate(agents):
            assert np.array_equal(aec.observe(agent)["observation"], obs[seat]), self.where(f"seat {seat}'s final view")
        assert not game.legal_masks([b]).any() or not game.is_over(b), self.where("the final mask")
        assert comparable(game.to_state(b)) == comparable(aec.game), self.where("the final state")


def play_deals(first: int, count: int) -> dict[str, int]:
    """Play deals ``first .. first + count - 1`` through both, BATCH at a time."""
    game = VecGame(BATCH)
    stats = {"deals": 0, "moves": 0, "truncated": 0, "blocked": 0, "cleared": 0}
    for start in range(first, first + count, BATCH):
        refs = [Reference(k, game, b) for b, k in enumerate(range(start, min(start + BATCH, first + count)))]
        live = list(refs)
        while live:
            idx = [r.b for r in live]
            masks = game.legal_masks(idx)
            obs = game.observe(idx, [game.to_act(b) for b in idx])
            acts = [r.check_turn(masks[i], obs[i]) for i, r in enumerate(live)]
            for r, a in zip(live, acts, strict=True):
                stock = len(r.aec.game.stock)
                r.step(a)
                stats["cleared"] += len(r.aec.game.stock) > stock + 1  # a complete pile went back
            game.step(idx, acts)
            for r in [r for r in live if r.done]:
                r.check_end(game)
                stats["deals"] += 1
                stats["moves"] += r.moves
                stats["truncated"] += game.truncated(r.b)
                stats["blocked"] += r.aec.game.blocked
            live = [r for r in live if not r.done]
    return stats


def test_kernel_equals_reference():
    stats = play_deals(0, 1000)
    print(stats)
    assert stats["deals"] == 1000
    assert stats["truncated"] > 0 and stats["blocked"] > 0 and stats["cleared"] > 0


@pytest.mark.slow
def test_kernel_equals_reference_10k():
    stats = play_deals(1000, 10_000)
    print(stats)
    assert stats["deals"] == 10_000


def test_the_fuzzer_draws_every_field_of_rules():
    """The deals of the default run draw every allowed value of every variant and vary every
    other field of ``Rules``: a field added to ``Rules`` is fuzzed against the kernel without
    being listed, and one that ``rule_fuzz`` cannot draw fails here."""
    missing = [name for name in FIELDS if name not in CHOICES and name not in FREE]
    assert not missing, f"Rules fields without a generator in tests/rule_fuzz.py: {missing}"
    seen: dict[str, set] = {name: set() for name in FIELDS}
    for k in range(1000):
        rules = deal_config(k)[0]
        for name in FIELDS:
            seen[name].add(repr(getattr(rules, name)))
    for name in FIELDS:
        if name in CHOICES:
            assert seen[name] == {repr(v) for v in CHOICES[name]}, f"{name}: drew {sorted(seen[name])}"
        else:
            assert len(seen[name]) >= 3, f"{name}: drew only {sorted(seen[name])}"
    assert {deal_config(k)[2] for k in range(1000)} == set(rewards.REWARDS)


DEAL_IGNORES = {"target", "tie_break", "chips", "chips_per_card", "extra_chip"}
"""The fields of ``Rules`` that only score a match (RULES.md 5): a deal's play and its rewards
never read them, so the kernel's rules row has no column for them (the observation, which the
kernel writes from ``observation.rules_vector``, does)."""


def test_the_kernel_rules_row_has_a_code_for_every_value_it_plays():
    """``game.rules_row`` is the one table from ``Rules`` to the kernel's ``R_*`` codes: every
    allowed value of a field the deal plays by gets its own row, the penalty columns are the
    rules' penalty table, and only the match-scoring fields leave the row alone."""
    base = Rules()
    for name in FIELDS:
        if name in ("scoring", "table", "custom_table"):
            continue  # they reach the row only as the penalty table, checked below
        values = CHOICES[name] if name in CHOICES else (1, 2, 3, 5, 8) if name == "hand_size" else (1, 10, 1000)
        rows = {rules_row(base.replace(**{name: v})).tobytes() for v in values}
        if name in DEAL_IGNORES:
            assert rows == {rules_row(base).tobytes()}, f"{name} is in DEAL_IGNORES but changes the kernel's row"
        else:
            assert len(rows) == len(values), f"the kernel's rules row does not tell the values of {name} apart"
    rng = random.Random(0)
    for _ in range(200):
        rules = random_rules(rng)
        table = rules.penalty_table()
        assert rules_row(rules)[K.R_PEN:K.R_PEN + 14].tolist() == [table[key] for key in observation.PENALTY_KEYS]
    for reward in rewards.REWARDS:
        rules_row(base, reward=reward)  # a code for every reward kind


def test_joker_king_same_suit_corner_regression():
    """A part starting with a joker standing for a black queen may not move onto a joker-king
    same-suit corner when the first real card above it is a heart (the engine's rule since
    8deccea); the uniform random play of the 10k run never reached it, the biased play did."""
    text = """N: 9C 8D
E: 4S 3D 2C AH
S: JD 10S 9D 8C 7H 6S
W: KH JK JH
NE: KS
SE: KC
SW: -
NW: JK
hand 0: KD 10H
hand 1: 7C 7S QD 5S 9H QH 5H 3H 2S
stock: AS 8S QS QC AC 5C 4C JC 6D
turn: 0 played moved
"""
    from kc_env import actions

    game = VecGame(1)
    for pile_moves in ("partial", "whole", "none"):
        rules = Rules.preset("standard", jokers=2, corner_build="same_suit", pile_moves=pile_moves, cross_kings="stay")
        state = engine.from_text(text, rules)
        game.load(0, state)
        assert np.array_equal(game.legal_masks([0])[0], actions.legal_mask(state))
        assert not game.legal_masks([0])[0][actions.parse("move W->NW")]
        assert np.array_equal(game.observe([0], [0])[0], observation.encode(state, 0))


# -- the VecEnv with its opponents inside -------------------------------------------------------

def replay(info: dict, seen: list[tuple[np.ndarray, np.ndarray]], rules: Rules, n: int, reward: str,
           max_moves: int, final_reward: float, opponents: list[str]) -> None:
    """Replay one finished vec-env episode through the AEC env and compare what the learner saw;
    a rule-based opponent's every move must be the one its reference agent picks."""
    deal = info["deal"]
    aec = kings_corner_v0.engine_env(rules=rules, num_players=n, reward=reward, max_moves=max_moves)
    aec.reset(seed=0)
    aec.state_ = engine.new_deal(rules, n, seed=deal["seed"], dealer=deal["dealer"])  # the same deal
    aec.agent_selection = aec.agents[aec.state_.current_player]
    seat = deal["learner_seat"]
    learner = aec.possible_agents[seat]
    judges = {aec.possible_agents[(seat + 1 + j) % n]: agents.load(spec) for j, spec in enumerate(opponents)
              if spec != "random"}
    turns = iter(seen)
    for action in deal["actions"]:
        agent = aec.agent_selection
        ref = aec.observe(agent)
        if agent == learner:
            obs, mask = next(turns)
            assert np.array_equal(ref["observation"], obs), f"learner view differs in {deal}"
            assert np.array_equal(ref["action_mask"].astype(bool), mask), f"learner mask differs in {deal}"
        elif agent in judges:
            assert judges[agent].act(ref) == action, f"{agent} ({judges[agent]}) played otherwise in {deal}"
        aec.step(action)
    assert next(turns, None) is None, "the vec env gave the learner more turns than the replay"
    assert aec.terminations[learner] or aec.truncations[learner], "the replay did not end"
    assert aec.rewards[learner] == pytest.approx(final_reward, abs=1e-6)
    assert info["TimeLimit.truncated"] == aec.truncations[learner]
    assert np.array_equal(aec.observe(learner)["observation"], info["terminal_observation"])


def play_and_replay(env, rules, n, reward, max_moves, opponents_of, episodes: int, seed: int) -> None:
    """Random learner moves in every game of ``env`` until ``episodes`` deals have ended; each
    ended deal is replayed in the reference env (``replay``) with game ``b``'s opponents
    ``opponents_of(b)``, and its recorded length must be the learner's number of steps."""
    obs = env.reset()
    seen: list[list] = [[] for _ in range(env.num_envs)]
    rng = np.random.default_rng(seed)
    ended = 0
    while ended < episodes:
        masks = env.action_masks()
        for b in range(env.num_envs):
            seen[b].append((obs[b].copy(), masks[b].copy()))
        obs, rewards, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for b in np.flatnonzero(dones):
            replay(infos[b], seen[b], rules, n, reward, max_moves, float(rewards[b]), opponents_of(b))
            assert infos[b]["episode"]["l"] == len(seen[b])
            seen[b] = []
            ended += 1


@pytest.mark.parametrize("preset,n,reward,max_moves,hand_size,opponents", [
    ("standard", 2, "win_loss", MAX_MOVES, 7, ["random"]),
    ("wikihow", 3, "score", MAX_MOVES, 7, ["greedy", "random"]),
    ("pagat", 4, "win_loss", 60, 7, ["random", "heuristic", "greedy"]),
    ("online", 5, "score", MAX_MOVES, 3, ["random"] * 4),
    ("bicycle", 6, "win_loss", MAX_MOVES, 1, ["random"] * 5),
    ("german", 3, "win_loss", MAX_MOVES, 7, ["heuristic", "heuristic"]),
])
def test_vec_env_equals_reference(preset, n, reward, max_moves, hand_size, opponents):
    pytest.importorskip("stable_baselines3")
    from kc_env.vector import KingsCornerVecEnv

    rules = Rules.preset(preset, hand_size=hand_size)
    env = KingsCornerVecEnv(8, rules=rules, num_players=n, opponents=opponents, reward=reward,
                            max_moves=max_moves, seed=n, record=True)
    play_and_replay(env, rules, n, reward, max_moves, lambda b: opponents, episodes=24, seed=0)


def test_vec_env_per_game_opponents_equal_reference():
    """``set_opponents`` gives each game its own opponents; replayed, each plays as its agent."""
    pytest.importorskip("stable_baselines3")
    from kc_env.vector import KingsCornerVecEnv

    rules, n, B = Rules.preset("pagat"), 3, 6
    env = KingsCornerVecEnv(B, rules=rules, num_players=n, seed=11, record=True)
    table = {0: ["greedy", "heuristic"], 1: ["heuristic", "random"], 2: ["random", "random"]}
    for b in range(B):
        env.set_opponents([b], table[b % 3])
    play_and_replay(env, rules, n, "win_loss", MAX_MOVES, lambda b: table[b % 3], episodes=18, seed=1)


HOUSE_RULE_LINES = [  # tests/test_house_rules.py's positions, with the moves played there
    ("N: 10S\nE: AS\nS: AD\nW: AC\nhand 0: 9D 5C\nhand 1: 5H 4S 3S\nstock: -\nturn: 0",
     {"blocked_when": "no_moves"}, ["end", "end", "9D N", "end"]),
    ("N: 10S\nE: AS\nS: AD\nW: AC\nhand 0: 9D 5C\nhand 1: 5H 4S 3S\nstock: -\nturn: 0",
     {"blocked_when": "no_moves"}, ["end", "end", "end", "end"]),
    ("N: 2S\nE: AS\nS: AD\nW: AC\nhand 0: KD QH\nhand 1: 5H\nstock: -\nturn: 0",
     {"king_first": "before_ending"}, ["KD NE", "end"]),
    ("N: 3S\nE: 2H\nS: AD\nW: AC\nhand 0: 9D 5C\nhand 1: 5H 4S\nstock: -\nturn: 0",
     {"must_play": "all_moves"}, ["move E N", "move W N", "9D E", "5C W"]),
    ("N: KS\nE: 9H\nhand 0: 2C 8S\nhand 1: 3D\nhand 2: 4D\nstock: -\nturn: 0 drawn first",
     {"cross_kings": "stay", "cross_king_move": "first_turn"}, ["end", "end"]),
    ("N: 10S\nhand 0: JK QH QS\nhand 1: 3D\nstock: -\nturn: 0 drawn",
     {"jokers": 2, "joker_on_empty_side": True}, ["JK E", "QH E", "end"]),
    ("N: 9H\nE: QH\nS: JD\nNE: KC QD JS 10H\nhand 0: 2S 5D\nhand 1: 5H\nstock: -\nturn: 0",
     {"pile_moves": "partial"}, ["move NE E", "end", "move E NE", "end"]),
]


@pytest.mark.parametrize("text, overrides, moves", HOUSE_RULE_LINES)
def test_the_house_rule_positions_play_the_same_in_the_kernel(text, overrides, moves):
    """Each new value of issue 19 on its rule-book position: the kernel's masks and state equal
    the engine's at every move."""
    full = "\n".join([text] + [f"{p}: -" for p in engine.PILE_NAMES if f"{p}:" not in text])
    state = engine.from_text(full, Rules(**overrides))
    game = VecGame(1)
    game.load(0, state)
    for text_move in moves + [None]:
        assert np.array_equal(game.legal_masks([0])[0], actions.legal_mask(state)), (text_move, engine.to_text(state))
        assert comparable(game.to_state(0)) == comparable(state), engine.to_text(state)
        if text_move is None or state.is_over:
            break
        a = actions.encode(engine.parse_move(text_move))
        engine.apply(state, actions.decode(a))
        game.step([0], [a])
    assert state.is_over == game.is_over(0)


# -- the AEC env itself: raw_env (the kernel) against engine_env (the engine) --------------------

def aec_config(k: int) -> tuple[dict, bool]:
    """Episode ``k``'s env arguments (deal ``k``'s rules, players, reward and max_moves; one in
    three a match of 1 to 3 deals; a fixed dealer sometimes) and whether to play it through
    ``env()``'s wrapper."""
    rules, n, reward, max_moves = deal_config(k)
    rng = random.Random(5000 + k)
    kwargs = dict(rules=rules, num_players=n, reward=reward, max_moves=max_moves)
    if rng.random() < 1 / 3:
        kwargs.update(episode="match", max_deals=rng.choice([1, 2, 3]),
                      max_moves=rng.choice([max_moves, 60]))
    if rng.random() < 0.2:
        kwargs["dealer"] = rng.randrange(n)
    return kwargs, rng.random() < 0.5


def same_view(got: dict, ref: dict, where: str) -> None:
    for key in ("observation", "action_mask"):
        assert got[key].dtype == ref[key].dtype and np.array_equal(got[key], ref[key]), f"{key} differs {where}"


def same_books(env, ref, where: str) -> None:
    """Everything PettingZoo keeps, value and type, and the view of the agent to act."""
    assert env.agents == ref.agents and env.agent_selection == ref.agent_selection, f"the agent to act {where}"
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        got, want = getattr(env, name), getattr(ref, name)
        assert got == want and [type(v) for v in got.values()] == [type(v) for v in want.values()], (
            f"{name} differ {where}: {got} vs {want}")
    if env.agents:
        same_view(env.observe(env.agent_selection), ref.observe(ref.agent_selection), where)


def try_both(env, ref, action) -> tuple:
    """Step both with ``action``; the errors and warnings they give, as text."""
    out = []
    for e in (env, ref):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                e.step(action)
                error = None
            except Exception as exc:  # noqa: BLE001 - the two must fail alike, whatever the error
                error = f"{type(exc).__name__}: {exc}"
        out.append((error, [str(w.message) for w in caught]))
    return tuple(out)


def play_aec_episode(k: int) -> dict[str, int]:
    """Episode ``k`` through ``kings_corner_v0.raw_env`` and ``engine_env`` (both wrapped by
    ``ClassicWrapper`` when ``aec_config`` says so) with the same seed and actions: an illegal or
    malformed action now and then (same error or warning, nothing changed), sometimes a reset
    from the position of another deal; compared after every step (``same_books``), at the end
    every agent's view, ``state()``, the move log and the engine state itself (hand order
    included)."""
    kwargs, wrapped = aec_config(k)
    if wrapped:
        env, ref = kings_corner_v0.env(**kwargs), ClassicWrapper(kings_corner_v0.engine_env(**kwargs), -1)
    else:
        env, ref = kings_corner_v0.raw_env(**kwargs), kings_corner_v0.engine_env(**kwargs)
    raw, raw_ref = env.unwrapped, ref.unwrapped
    rng = random.Random(k)
    options = None
    if k % 7 == 3:  # a position: another deal's, some moves in
        donor = kings_corner_v0.engine_env(**kwargs)
        donor.reset(seed=k + 1)
        for _ in range(rng.randrange(1, 30)):
            state = donor.unwrapped.game
            if state.is_over or not donor.agents or donor.terminations[donor.agent_selection]:
                break
            donor.step(int(rng.choice(np.flatnonzero(actions.legal_mask(state)))))
        if not donor.unwrapped.game.is_over:
            options = {"position": engine.to_text(donor.unwrapped.game)}
    env.reset(seed=k, options=options)
    ref.reset(seed=k, options=options)
    where = f"in episode {k} ({kwargs}, wrapped={wrapped})"
    same_books(env, ref, where + " after reset")
    steps = illegal = truncated = 0
    while ref.agents:
        agent = ref.agent_selection
        done = ref.terminations[agent] or ref.truncations[agent]
        truncated |= ref.truncations[agent]
        if not done and rng.random() < 0.02:  # an illegal action, or no action at all
            bad = rng.choice([rng.randrange(actions.NUM_ACTIONS), -1, 497, 3.5, True, None])
            if not isinstance(bad, int) or type(bad) is bool or not 0 <= bad < 497 or not raw_ref.is_legal(bad):
                got, want = try_both(env, ref, bad)
                assert got == want, f"illegal action {bad!r} {where}: {got} vs {want}"
                illegal += 1
                same_books(env, ref, f"{where} after illegal action {bad!r}")
                continue
        if done:
            action = None
        else:
            mask = ref.observe(agent)["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        ref.step(action)
        steps += 1
        same_books(env, ref, f"{where} after {steps} steps")
        if rng.random() < 0.03:
            assert raw.game.snapshot() == raw_ref.game.snapshot(), f"the engine state {where}"
    for agent in raw.possible_agents:
        same_view(raw.observe(agent), raw_ref.observe(agent), f"{where}, {agent}'s final view")
    assert np.array_equal(raw.state(), raw_ref.state()), f"state() {where}"
    assert raw.move_log == raw_ref.move_log, f"the move log {where}"
    assert raw.game.snapshot() == raw_ref.game.snapshot(), f"the final engine state {where}"
    return {"episodes": 1, "steps": steps, "illegal": illegal, "matches": kwargs.get("episode") == "match",
            "truncated": truncated}


def play_aec_episodes(first: int, count: int) -> dict[str, int]:
    stats: dict[str, int] = {}
    for k in range(first, first + count):
        for key, value in play_aec_episode(k).items():
            stats[key] = stats.get(key, 0) + int(value)
    return stats


def test_aec_env_equals_engine_env():
    """raw_env on the kernel is engine_env on the engine, step for step: every preset and player
    count (deal_config's cycle of 35) three times over, both episode kinds and reward kinds."""
    stats = play_aec_episodes(0, 105)
    print(stats)
    assert stats["episodes"] == 105 and stats["illegal"] > 0 and stats["matches"] > 0 and stats["truncated"] > 0


@pytest.mark.slow
def test_aec_env_equals_engine_env_2k():
    stats = play_aec_episodes(140, 2000)
    print(stats)
    assert stats["episodes"] == 2000
