"""The learned bot: a small neural network's policy, played with numpy alone.

The network is a multilayer perceptron over the observation of its seat
(``nomercy.encoding.observe``, built from the :class:`~nomercy.PlayerView` only): the
features ``log(1 + x)``, two hidden layers with ReLU, and one logit per RL action; the
illegal actions are masked out and the bot plays the most probable legal one (no search,
no randomness). Its weights ship in the package (``learned.npz``, float32), trained by
``python -m nomercy.rl.train`` (docs/rl.md); torch is needed to train, never to play.
A weights file may hold, besides the network every table uses, a network of its own for
some table sizes (the same arrays named ``p{n}_w0``, ...: :func:`seat_key`), for a size
where one network was measured not to serve all.

The house rules are an input (the observation's ``rules`` section, encoding 3). A weights
file of the width before it (encoding 2) is read with zero input weights for that section
(:func:`pad_inputs`): the same network, blind to the rules. The shipped file was trained
with varied house rules (``--rules mix``, docs/bots.md), so it reads them.

Out of turn (U1, U2) it follows a fixed rule, not the network: it calls its own late Uno
and catches a seat left open to a catch whenever the rules let it.

``search=true`` puts the network inside the expert's search as its prior: the expert's
sequential halving over candidates, with the network's pick as the one it protects (left
only for a clear gain on the same sampled worlds) in place of the heuristic's.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from nomercy.actions import CALL_UNO, Action, Catch
from nomercy.bots import Bot, register
from nomercy.bots.expert import ExpertBot
from nomercy.bots.heuristic import score_actions, table_from_view
from nomercy.encoding import MAX_PLAYERS, NUM_ACTIONS, OBS_SIZE, check_deck, index_to_action
from nomercy.encoding.rules import RULES_SIZE
from nomercy.events import Event
from nomercy.extras import require
from nomercy.rules import Rules
from nomercy.views import PlayerView

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "DEFAULT_WEIGHTS",
    "OLD_OBS_SIZE",
    "LearnedBot",
    "Policy",
    "load_policies",
    "load_policy",
    "pad_inputs",
    "seat_key",
]

#: The shipped weights, inside the package.
DEFAULT_WEIGHTS = "learned.npz"
#: The arrays a weights file holds: the hidden layers, then the policy head.
LAYERS = ("w0", "b0", "w1", "b1", "wp", "bp")
#: The observation's width before the rules section (encoding 2): such weights are padded.
OLD_OBS_SIZE = OBS_SIZE - RULES_SIZE


def _numpy() -> Any:
    """numpy, or a one-line error that says which extra brings it."""
    return require("numpy", "learned", "the learned bot")


def pad_inputs(w0: Any) -> Any:
    """The first layer's input-major matrix ``w0`` for today's observation: as it is, or,
    when it is of the width before the rules section (encoding 2), with zero rows for that
    section appended, so the network gives the same logits and ignores the rules."""
    xp = _numpy()
    width = int(w0.shape[0])
    if width == OBS_SIZE:
        return w0
    if width == OLD_OBS_SIZE:
        return xp.concatenate([w0, xp.zeros((RULES_SIZE, *w0.shape[1:]), w0.dtype)])
    raise ValueError(
        f"the weights take {width} inputs, but the observation has {OBS_SIZE} "
        f"(a file of {OLD_OBS_SIZE}, from before the rules section, is padded): not a file of this encoding"
    )


class Policy:
    """The network's forward pass over a batch, in numpy: ``policy(obs, masks)`` gives the
    most probable legal action per row (a batched policy for ``nomercy.rl.selfplay``)."""

    def __init__(self, arrays: dict[str, Any]) -> None:
        xp = _numpy()
        missing = [k for k in LAYERS if k not in arrays]
        if missing:
            raise ValueError(f"the weights lack {', '.join(missing)}: not a learned bot's file")
        self.layers = [xp.asarray(arrays[k], xp.float32) for k in LAYERS]
        self.layers[0] = pad_inputs(self.layers[0])

    def logits(self, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        xp = _numpy()
        w0, b0, w1, b1, wp, bp = self.layers
        x = xp.log1p(xp.maximum(obs, 0.0, dtype=xp.float32))
        h = xp.maximum(x @ w0 + b0, 0.0)
        h = xp.maximum(h @ w1 + b1, 0.0)
        out: npt.NDArray[np.float32] = h @ wp + bp
        return out

    def __call__(self, obs: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
        xp = _numpy()
        logits = xp.where(masks > 0, self.logits(obs), -xp.inf)
        best: npt.NDArray[np.int64] = xp.asarray(logits.argmax(axis=1), xp.int64)
        return best

    @property
    def size(self) -> int:
        """Parameters in all."""
        return sum(int(a.size) for a in self.layers)


def seat_key(players: int, name: str) -> str:
    """The name of array ``name`` of the network that plays tables of ``players`` seats."""
    return f"p{players}_{name}"


def _policies(arrays: dict[str, Any]) -> dict[int, Policy]:
    out = {0: Policy(arrays)}
    for players in range(2, MAX_PLAYERS + 1):
        if any(seat_key(players, k) in arrays for k in LAYERS):
            missing = [seat_key(players, k) for k in LAYERS if seat_key(players, k) not in arrays]
            if missing:
                raise ValueError(f"the weights lack {', '.join(missing)}: not a learned bot's file")
            out[players] = Policy({k: arrays[seat_key(players, k)] for k in LAYERS})
    return out


def load_policies(path: str | Path | None = None) -> dict[int, Policy]:
    """Every network of a weights file (default: the shipped one), by the table size it
    plays; key 0 is the network of every other size."""
    xp = _numpy()
    if path is None:
        with resources.files("nomercy.bots").joinpath(DEFAULT_WEIGHTS).open("rb") as f:
            data = xp.load(f)
            return _policies({k: data[k] for k in data.files})
    try:
        data = xp.load(Path(path))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the learned bot's weights {str(path)!r}: {exc}") from None
    return _policies({k: data[k] for k in data.files})


def load_policy(path: str | Path | None = None, players: int | None = None) -> Policy:
    """The policy of a weights file (default: the shipped one) that plays tables of
    ``players`` seats (default: the network of every table without one of its own)."""
    policies = load_policies(path)
    return policies.get(players or 0, policies[0])


_SHIPPED: list[dict[int, Policy]] = []


@register("learned")
class LearnedBot(Bot):
    """The shipped network's choice from its seat's view (``weights=PATH`` for another
    file of the same format)."""

    name: ClassVar[str] = "learned"

    def __init__(
        self, seed: int | None = None, weights: str | None = None, search: bool = False, **expert: Any
    ) -> None:
        super().__init__(seed)
        if search not in (True, False):
            raise ValueError(f"search is true or false, got {search!r}")
        if expert and not search:
            raise ValueError(
                f"learned bot: unknown option(s) {', '.join(sorted(expert))} (without search=true)"
            )
        #: With ``search=true``: the expert's search (its options: ``budget``, ``ms``, ...)
        #: over the network's pick, which it leaves only for a clear gain on the same worlds.
        self.expert: ExpertBot | None = ExpertBot(seed=seed, **expert) if search else None
        if weights is None:
            if not _SHIPPED:  # loaded once: every tournament game makes a bot
                _SHIPPED.append(load_policies())
            self.policies = _SHIPPED[0]
        else:
            self.policies = load_policies(weights)
        #: The network of the tables without one of their own.
        self.policy = self.policies[0]
        xp = _numpy()
        from nomercy.encoding import reference  # numpy's encoder: after the check above

        self._encoder = reference
        self._rules: Rules | None = None
        self._obs = xp.zeros((1, OBS_SIZE), xp.float32)
        self._mask = xp.zeros((1, NUM_ACTIONS), xp.int8)

    def choose(self, view: PlayerView) -> Action:
        if view.rules is not self._rules:  # the network has no input for a W7 card
            check_deck(view.rules)
            self._rules = view.rules
        self._encoder.observe(view, self._obs[0])
        self._encoder.legal_mask(view, self._mask[0])
        policy = self.policies.get(view.players, self.policy)
        index = int(policy(self._obs, self._mask)[0])
        action = index_to_action(view, index)
        if self.expert is not None:
            return self._search(view, action)
        return action

    def _search(self, view: PlayerView, pick: Action) -> Action:
        """The expert's search with the network's pick as the candidate it protects, the
        heuristic's best others after it."""
        expert = self.expert
        assert expert is not None and view.seat is not None
        expert.last_playouts = 0
        ranked = [a for _, a in score_actions(table_from_view(view), view.legal_actions)]
        if len(ranked) == 1:
            return ranked[0]
        candidates = [pick, *[a for a in ranked if a != pick][: expert.width - 1]]
        expert.memory.sync(view)
        return expert._search(view, view.seat, candidates)

    def observe(self, events: list[Event]) -> None:
        if self.expert is not None:
            self.expert.observe(events)

    def react(self, view: PlayerView) -> Action | None:
        legal = view.legal_actions
        if CALL_UNO in legal:
            return CALL_UNO
        return next((a for a in legal if isinstance(a, Catch)), None)
