"""The players: bot policies that decide from one seat's view, and what is built on them.

They read the rules core (`rules.view.SeatView`, the legality functions, the hand tables) and
the rules core never reads them: a rule does not depend on how anyone plays.

- `shanten`: the exact distance to ready the bots read their hands with.
- `bot`: the `normal` policy (`Bot`), and the approximate shanten of the strong bot's playouts.
- `bot_strong`: the `strong` policy, which values moves on sampled futures.
- `levels`: the levels a table can pick (`policy_for`), `easy` among them.
- `hints`: the strong bot's best moves for a seat, with reasons, for the client.
- `arena`: the duplicate-deal harness that measures one policy against another. It lives here
  and not beside the rules because it exists to compare players; it imports only the round.
"""

from rules.players.bot import Bot
from rules.players.levels import LEVELS, LevelPolicy, policy_for

# (`rules.players.shanten` is the module of the exact shanten: no function here takes its name)
__all__ = ["LEVELS", "Bot", "LevelPolicy", "policy_for"]
