"""The rules engine: pure functions over bitmasks of tiles (bit t-1 = tile t).

No I/O, no clock, no randomness: the game, the solver and the command line
all ask these functions what the seeds allow.
"""

from .match import (
    MatchState,
    RoundResult,
    ends_round_at_once,
    finish_round,
    new_match,
    settle_pot,
    stop_match,
)
from .moves import (
                    ONE_DIE_THROWS,
                    TWO_DICE_THROWS,
                    Dice,
                    DiceChoice,
                    allowed_dice_counts,
                    check_dice,
                    dice_choice,
                    has_any_move,
                    legal_closures,
                    targets,
                    throws_for,
)
from .position import AnyThrow, Position, Throw
from .ruleset import (
                    DEFAULT_PRESET,
                    KEYS,
                    PRESETS,
                    RulesError,
                    RuleSet,
                    build_rules,
                    parse_set_options,
                    rules_from_dict,
                    rules_from_table,
)
from .scoring import turn_score
from .tiles import Mask, full_board, is_subset, mask_of, tile_bit, tiles_of

__all__ = [
    "DEFAULT_PRESET", "KEYS", "PRESETS", "ONE_DIE_THROWS", "TWO_DICE_THROWS",
    "AnyThrow", "Dice", "DiceChoice", "Mask", "MatchState", "Position", "RoundResult", "RuleSet",
    "RulesError", "Throw", "allowed_dice_counts", "build_rules", "check_dice", "dice_choice",
    "ends_round_at_once", "finish_round", "full_board", "has_any_move", "is_subset",
    "legal_closures",
    "mask_of", "new_match", "parse_set_options", "rules_from_dict", "rules_from_table",
    "settle_pot", "stop_match", "targets", "throws_for", "tile_bit", "tiles_of", "turn_score",
]
