"""Rounds and matches: doubling, totals, elimination, races and the pool.

Players are indices 0..n-1 in turn order; names belong to the game layer.
A round is described by each player's open tiles when their turn ended
(``None`` for a player who did not play: out of an elimination match, or
after an instant win cut the round short).

Ties, in every match format:

- ``single-round``: every player with the lowest final score wins (a shared win).
- ``elimination``: the last player left wins. If every remaining player goes
  out in the same round, the lowest total among them wins (ties share).
  A one-player match ends when that player goes out.
- ``race``: the lowest total wins once the round in which someone reached the
  threshold is finished; equal lowest totals share the win.
- ``pool``: the round's lowest score takes the pot; equal lowest scores split
  it evenly and an indivisible remainder stays in the pot for the next round.
  When the players stop the match, what is still in the pot (only a tied last
  round leaves any) goes a coin each, in seat order, to the players who tied
  for that round (:func:`settle_pot`); then the highest balance wins (ties share).
- ``instant-win``: the first player to shut the box wins; nobody after them
  plays that round, so two shutters cannot tie.
- ``double-others``: if anyone shuts the box, every other player's score for
  the round is doubled once, however many players shut it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .ruleset import RuleSet
from .scoring import turn_score
from .tiles import Mask


@dataclass(frozen=True)
class RoundResult:
    number: int
    open_masks: tuple[Mask | None, ...]
    raw: tuple[int | None, ...]
    final: tuple[int | None, ...]
    shutters: tuple[int, ...]
    winners: tuple[int, ...]
    newly_out: tuple[int, ...] = ()
    pot_paid: tuple[int, ...] = ()  # per player: what they took from the round (pool)


@dataclass(frozen=True)
class MatchState:
    players: int
    totals: tuple[int, ...]
    out: frozenset[int] = frozenset()
    balances: tuple[int, ...] = ()
    pot: int = 0
    rounds: tuple[RoundResult, ...] = field(default=())
    over: bool = False
    winners: tuple[int, ...] = ()

    @property
    def round_number(self) -> int:
        """The number of the round being played (or about to be)."""
        return len(self.rounds) + 1

    def active(self) -> tuple[int, ...]:
        """The players who take a turn in the next round, in order."""
        return tuple(p for p in range(self.players) if p not in self.out)


def new_match(players: int) -> MatchState:
    if players < 1:
        raise ValueError("a match needs at least one player")
    return MatchState(players=players, totals=(0,) * players, balances=(0,) * players)


def ends_round_at_once(rules: RuleSet, open_mask: Mask) -> bool:
    """Whether the turn that left ``open_mask`` cuts the round short (instant win)."""
    return rules.shut_the_box == "instant-win" and open_mask == 0


def _lowest(values: dict[int, int]) -> tuple[int, ...]:
    if not values:
        return ()
    best = min(values.values())
    return tuple(p for p, v in values.items() if v == best)


@dataclass(frozen=True)
class _Scored:
    """A round's turns scored: who played, the scores before and after doubling."""
    played: tuple[int, ...]
    raw: tuple[int | None, ...]
    final: dict[int, int]         # player: score after doubling (players who played)
    shutters: tuple[int, ...]


def _score_round(rules: RuleSet, players: int, open_masks: Sequence[Mask | None]) -> _Scored:
    """Each turn's score, doubled for the others when someone shut the box."""
    played = tuple(p for p, m in enumerate(open_masks) if m is not None)
    scored = {p: turn_score(rules, m) for p, m in enumerate(open_masks) if m is not None}
    raw = tuple(scored.get(p) for p in range(players))
    shutters = tuple(p for p in played if open_masks[p] == 0)
    if rules.shut_the_box == "double-others" and shutters:
        scored = {p: v if p in shutters else 2 * v for p, v in scored.items()}
    return _Scored(played, raw, scored, shutters)


def _settle_pool(rules: RuleSet, state: MatchState, shutters: tuple[int, ...],
                 round_winners: tuple[int, ...],
                 instant: bool) -> tuple[list[int], int, list[int]]:
    """A pool's round: every player in it stakes, the winners take the pot.
    Returns the balances, the pot left and what each player took."""
    balances, pot = list(state.balances), state.pot
    paid = [0] * state.players
    # every player stakes at the start of the round, also those an
    # instant win later leaves without a turn
    staking = state.active()
    for p in staking:
        balances[p] -= rules.stake
        pot += rules.stake
    if instant:
        shutter = shutters[0]
        # the pot holds one stake from everyone; each other player pays
        # one more, so the shutter collects twice the stake from each.
        extra = rules.stake * (len(staking) - 1)
        for p in staking:
            if p != shutter:
                balances[p] -= rules.stake
        paid[shutter] = pot + extra
        pot = 0
    elif round_winners:
        share = pot // len(round_winners)
        for p in round_winners:
            paid[p] = share
        pot -= share * len(round_winners)
    for p in range(state.players):
        balances[p] += paid[p]
    return balances, pot, paid


def _match_end(rules: RuleSet, state: MatchState, scored: _Scored, totals: list[int],
               round_winners: tuple[int, ...],
               instant: bool) -> tuple[bool, tuple[int, ...], tuple[int, ...]]:
    """Whether the round decided the match (not a pool: the players stop it),
    its winners, and who went out (elimination). Returns (over, winners, newly out)."""
    threshold = rules.threshold if rules.threshold is not None else 0  # set for race, elimination
    everyone = range(state.players)
    if rules.match == "pool":
        return False, (), ()
    if instant:
        return True, scored.shutters[:1], ()
    if rules.match == "single-round":
        return True, round_winners, ()
    if rules.match == "race":
        if any(totals[p] >= threshold for p in scored.played):
            return True, _lowest({p: totals[p] for p in everyone}), ()
        return False, (), ()
    return _elimination_end(state.players, scored.played, totals, threshold)


def _elimination_end(players: int, played: tuple[int, ...], totals: list[int],
                     threshold: int) -> tuple[bool, tuple[int, ...], tuple[int, ...]]:
    """Those who reached the threshold are out; the last one left wins (all
    out at once: the lowest total among them)."""
    newly_out = tuple(p for p in played if totals[p] >= threshold)
    remaining = [p for p in played if p not in newly_out]
    if len(remaining) == 0 or (players > 1 and len(remaining) == 1):
        winners = (tuple(remaining) if remaining
                   else _lowest({p: totals[p] for p in newly_out}))
        return True, winners, newly_out
    return False, (), newly_out


def finish_round(rules: RuleSet, state: MatchState,
                 open_masks: Sequence[Mask | None]) -> MatchState:
    """The match after a round in which each player's turn left ``open_masks``:
    the turns scored, the round's winners, the pool settled, the match's end."""
    if state.over:
        raise ValueError("the match is already over")
    if len(open_masks) != state.players:
        raise ValueError(f"expected {state.players} players' tiles, got {len(open_masks)}")
    scored = _score_round(rules, state.players, open_masks)
    instant = rules.shut_the_box == "instant-win" and bool(scored.shutters)
    round_winners = scored.shutters[:1] if instant else _lowest(scored.final)
    totals = list(state.totals)
    for p in scored.played:
        totals[p] += scored.final[p]
    if rules.match == "pool":
        balances, pot, paid = _settle_pool(rules, state, scored.shutters, round_winners, instant)
    else:
        balances, pot, paid = list(state.balances), state.pot, [0] * state.players
    over, winners, newly_out = _match_end(rules, state, scored, totals, round_winners, instant)
    result = RoundResult(
        number=state.round_number, open_masks=tuple(open_masks), raw=scored.raw,
        final=tuple(scored.final.get(p) for p in range(state.players)),
        shutters=scored.shutters, winners=round_winners, newly_out=newly_out,
        pot_paid=tuple(paid))
    return replace(state, totals=tuple(totals), out=state.out | frozenset(newly_out),
                   balances=tuple(balances), pot=pot, rounds=state.rounds + (result,),
                   over=over, winners=winners)


def settle_pot(balances: Sequence[int], pot: int,
               last_winners: Sequence[int]) -> tuple[int, ...]:
    """A pool's settle-up: the balances once the pot is empty. What an uneven
    split left in the pot (fewer coins than the players who tied for the last
    round) goes a coin each to those players, in seat order; with no winner to
    name, to every player in seat order. The balances then add up to 0."""
    out = list(balances)
    takers = sorted(set(last_winners)) or list(range(len(out)))
    if not takers:
        return tuple(out)
    share, odd = divmod(pot, len(takers))
    for i, p in enumerate(takers):
        out[p] += share + (1 if i < odd else 0)
    return tuple(out)


def stop_match(rules: RuleSet, state: MatchState) -> MatchState:
    """The players stop the match (the only way a pool ends): the pot is
    settled (:func:`settle_pot`), then the standings decide."""
    if state.over:
        return state
    if rules.match == "pool":
        last = state.rounds[-1].winners if state.rounds else ()
        balances = settle_pot(state.balances, state.pot, last)
        winners = _lowest({p: -b for p, b in enumerate(balances)})
        return replace(state, over=True, winners=winners, balances=balances, pot=0)
    winners = _lowest({p: state.totals[p] for p in state.active()})
    return replace(state, over=True, winners=winners)
