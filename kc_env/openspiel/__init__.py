"""Kings in the Corner as an OpenSpiel game: ``import kc_env.openspiel`` registers
``python_kings_corner`` with ``pyspiel`` (the ``openspiel`` extra: ``pip install 'kc_env[openspiel]'``).

```python
import pyspiel
import kc_env.openspiel

game = pyspiel.load_game("python_kings_corner(players=3,rules=pagat)")
state = game.new_initial_state()
```

| | |
|---|---|
| parameters | ``players`` 2..6 (default 2); ``rules``: a preset with overrides as ``kc --rules`` reads them, written ``pagat;must_play:all`` (a game string splits its parameters at ``,`` and ``=``); ``reward``: ``win_loss`` (default) or ``score`` (``kc_env.rewards``); ``max_moves`` 1 to ``MAX_MOVES`` (default 1000) |
| one episode | one deal, dealer seat 0 |
| actions | the 497 of ``kc_env.actions``, the same ids and names (``play 9H->N``, ``move W->N``, ``end turn``); a turn is several actions of one seat, ``end turn`` last |
| chance | the deal: the deck's top cards one at a time (hands from the dealer's left, then the cross), as many as the deal can take (``deal.deal_size``), then the first seat under ``first_player: random``; after that, whenever the stock's top card is undecided, a chance node puts one of the stock's undecided cards on top (before each draw from the rest of the stock, and after ``clear_complete_piles`` shuffles a cleared pile into it). Every outcome is uniform over the cards the place can hold (ids of ``kc_env.cards``) |
| observation | tensor: ``kc_env.observation.encode(deal, seat)`` (1599 values); string: that view as text |
| information state | the view's text and every move made (``seat:name``); no tensor |
| returns | at the end of the deal. ``win_loss``: zero-sum (+1 to the winner, -1/(n-1) to each other seat; 0 to all in a blocked deal without a winner). ``score``: general-sum, minus each seat's penalty points over ``rewards.score_scale``. A deal cut off at ``max_moves`` counts as blocked (``match.truncate``) |
| ``max_game_length`` | ``max_moves`` (decision nodes; ``GAME_INFO.default_max_moves``); ``max_chance_nodes_in_history`` the deck's cards and the first seat, then two a decision |

The state wraps an engine ``GameState`` (``state.table.deal``) and every move is ``engine.apply``.
``resample(state, player)`` is the re-deal that ``ISMCTSBot.set_resampler`` takes;
``AgentBot(spec)`` plays a kc_env agent as a ``pyspiel.Bot``; ``BotAgent(maker)`` and
``ISMCTSAgent`` play an OpenSpiel bot as a kc_env ``Agent``. Examples: docs/integrations.md.
"""

from .bots import AgentBot, BotAgent, BotMaker, ISMCTSAgent, ISMCTSMaker
from .game import SHORT_NAME, KingsCornerGame, KingsCornerState
from .position import SeatPosition, rules_text, seat_position
from .search import resample, resampler

__all__ = ["SHORT_NAME", "AgentBot", "BotAgent", "BotMaker", "ISMCTSAgent", "ISMCTSMaker", "KingsCornerGame",
           "KingsCornerState", "SeatPosition", "resample", "resampler", "rules_text", "seat_position"]
