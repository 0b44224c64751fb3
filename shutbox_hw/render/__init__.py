"""Screen descriptions -> 128x64 1-bit images for the OLED.

``render(screen)`` is a pure function: the same screen gives the same
pixels on any machine (the fonts are data in :mod:`.fonts`, drawing is
plain PIL.ImageDraw), so golden images can be compared exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

from ..game.display.screens import (
    AttractScreen,
    ConfirmScreen,
    MenuScreen,
    NoticeScreen,
    PlayScreen,
    ResultScreen,
    ScoreboardScreen,
    Screen,
    ShutScreen,
    SwitchTestScreen,
    TurnEndScreen,
)
from .play import draw_play, draw_turn_end
from .scoreboard import draw_result, draw_scoreboard
from .service import draw_menu, draw_switch_test
from .simple import draw_attract, draw_confirm, draw_notice, draw_shut
from .widgets import HEIGHT, WIDTH

_DRAWERS: dict[type, Callable[[ImageDraw.ImageDraw, Any], None]] = {
    AttractScreen: draw_attract,
    PlayScreen: draw_play,
    TurnEndScreen: draw_turn_end,
    ScoreboardScreen: draw_scoreboard,
    ResultScreen: draw_result,
    ConfirmScreen: draw_confirm,
    NoticeScreen: draw_notice,
    ShutScreen: draw_shut,
    MenuScreen: draw_menu,
    SwitchTestScreen: draw_switch_test,
}


def render(screen: Screen) -> Image.Image:
    """Draw ``screen`` on a fresh 128x64 mode "1" image (lit pixels = 1)."""
    try:
        drawer = _DRAWERS[type(screen)]
    except KeyError:
        raise TypeError(f"not a screen: {type(screen).__name__}") from None
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    drawer(ImageDraw.Draw(image), screen)
    return image


__all__ = ["render", "WIDTH", "HEIGHT"]
