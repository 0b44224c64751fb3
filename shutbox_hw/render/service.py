"""The operator's service menu: menu pages and the live switch test.

Menu page, top to bottom: the title (small), and at its right, when the
lines do not all fit, where the page is ("4/6", "6-8/12") and arrows saying
there is more above or below; three lines in the 10 px menu font, the
highlighted one inverted (a bar); a rule; what the buttons do (10 px). A
value ("always", "2500") sits at the right of its line. A heading line (the
audits' "GAMES", "BUTTON PRESSES") is small capitals between two rules.

Switch test: one box per flap in one or two rows, filled (dark number)
while its switch is closed and outlined while it is open, its closure
count under it; ROLL's and NEXT's press counts; what to do.
"""

from __future__ import annotations

from PIL import ImageDraw

from ..game.display.screens import MenuScreen, SwitchTestScreen
from . import text, widgets
from .fonts import NARROW, role
from .widgets import BOTTOM, RIGHT

TITLE_Y = 0
LIST_Y = 10              # top row of the first line's text (its bar starts a row above)
PITCH = 14               # a 12 px bar and 2 px between bars
VISIBLE = 3              # lines shown at once
RULE_Y = 50              # the rule between the lines and what the buttons do
ARROW_W = 5              # the scroll marks: 5x3 triangles at the title's right
VALUE_GAP = 6            # least room between a line and its value
HALVES_GAP = 7           # between the prompt's halves, a short rule in its middle


def window(n: int, selected: int | None, first: int) -> int:
    """The first of ``n`` lines shown (VISIBLE lines show at once).

    A list to read starts at ``first``. A page with a highlight shows the
    highlighted line and, where there is one, the line after it (NEXT
    moves down, so the operator sees what comes next); ``first`` is kept
    when it already shows the highlighted line."""
    if n <= VISIBLE:
        return 0
    last_top = n - VISIBLE
    if selected is None:
        return max(0, min(first, n - 1))
    if 0 < first <= min(selected, last_top) and selected < first + VISIBLE:
        return first
    return max(0, min(selected - VISIBLE + 2, last_top))


def _arrow(canvas: ImageDraw.ImageDraw, x: int, y: int, up: bool) -> None:
    """A small filled triangle, ARROW_W wide and 3 tall, pointing up or down."""
    for i in range(3):
        row = y + (2 - i if up else i)
        canvas.line((x + i, row, x + ARROW_W - 1 - i, row), fill=1)


def _line(canvas: ImageDraw.ImageDraw, y: int, right: int, label: str, value: str,
          fill: int) -> None:
    """One menu line in the menu font from x 1 to ``right``: the label at the
    left, the value (if any) ending at ``right``; both shortened if need be,
    the value last (it is what the operator came to see)."""
    font, scale = role("menu")
    left = 1
    room = right - left
    if value:
        label_w = text.width(label, font, scale)
        value = text.shorten(value, font, max(room * 2 // 3, room - label_w - VALUE_GAP),
                             scale)
        value_x = widgets.right_text(canvas, right, y, value, font, scale, fill)
        room = value_x - VALUE_GAP - left
    label = text.shorten(label, font, room, scale)
    text.draw(canvas, left, y, label, font, scale, fill=fill)


def _prompt(canvas: ImageDraw.ImageDraw, prompt: str) -> int:
    """What the buttons do, one 10 px line ending on the last drawn row: its
    two halves ("NEXT: move", "ROLL: choose") apart, a short rule between
    them, when they fit so; returns the top row it took."""
    font, scale = role("prompt")
    top = BOTTOM - font.height * scale
    halves = [p.strip() for p in prompt.split("  ") if p.strip()]
    if len(halves) == 2:
        widths = [text.width(h, font, scale) for h in halves]
        if sum(widths) + HALVES_GAP <= RIGHT:
            x = (RIGHT - sum(widths) - HALVES_GAP) // 2
            text.draw(canvas, x, top, halves[0], font, scale)
            mid = x + widths[0] + HALVES_GAP // 2
            canvas.line((mid, top + 2, mid, BOTTOM - 3), fill=1)
            text.draw(canvas, x + widths[0] + HALVES_GAP, top, halves[1], font, scale)
            return top
    line = text.shorten(" ".join(prompt.split()), font, RIGHT, scale)
    text.draw(canvas, text.centred_x(line, font, 0, RIGHT, scale), top, line, font, scale)
    return top


def _heading(canvas: ImageDraw.ImageDraw, y: int, label: str) -> None:
    """A group's heading: small, centred between two rules, so it reads as a
    heading and not as a figure (nor as a button)."""
    small, _ = role("secondary")
    label = text.shorten(label.upper(), small, RIGHT - 16)
    w = text.width(label, small)
    x = (RIGHT - w) // 2
    mid = y + small.height // 2
    canvas.line((0, mid, x - 4, mid), fill=1)
    canvas.line((x + w + 3, mid, RIGHT - 1, mid), fill=1)
    text.draw(canvas, x, y, label, small)


def draw_menu(canvas: ImageDraw.ImageDraw, s: MenuScreen) -> None:
    small, _ = role("secondary")
    font, scale = role("menu")
    n = len(s.lines)
    selected = None if s.selected is None or n == 0 else max(0, min(s.selected, n - 1))
    top = window(n, selected, s.first)
    shown = range(top, min(n, top + VISIBLE))

    # the title, and where the page is when the lines do not all fit
    title_room = RIGHT - 1
    if n > VISIBLE:
        above, below = top > 0, top + VISIBLE < n
        if above:
            _arrow(canvas, RIGHT - ARROW_W, TITLE_Y, up=True)
        if below:
            _arrow(canvas, RIGHT - ARROW_W, TITLE_Y + small.height - 3, up=False)
        where = (f"{selected + 1}/{n}" if selected is not None
                 else f"{top + 1}-{shown[-1] + 1}/{n}" if len(shown) > 1 else f"{top + 1}/{n}")
        title_room = widgets.right_text(canvas, RIGHT - ARROW_W - 2, TITLE_Y, where, small) - 5
    text.draw(canvas, 1, TITLE_Y, text.shorten(s.title, small, title_room), small)

    for row, i in enumerate(shown):
        y = LIST_Y + row * PITCH
        value = s.values[i] if i < len(s.values) else ""
        if i in s.headings:
            _heading(canvas, y + (font.height * scale - small.height) // 2, s.lines[i])
            continue
        fill = 1
        if i == selected:
            canvas.rectangle((0, y - 1, RIGHT - 1, y + font.height * scale), fill=1)
            fill = 0
        _line(canvas, y, RIGHT - 1, s.lines[i], value, fill)

    if s.prompt:
        canvas.line((0, RULE_Y, RIGHT - 1, RULE_Y), fill=1)
        _prompt(canvas, s.prompt)


# --- switch test ---------------------------------------------------------

BOX_PAD = 2              # dark columns between a flap box's border and its number


def _grid(tiles: int) -> list[list[int]]:
    """The flaps in one row (up to 6) or two, the first row the longer."""
    numbers = list(range(1, tiles + 1))
    if tiles <= 6:
        return [numbers]
    split = (tiles + 1) // 2
    return [numbers[:split], numbers[split:]]


def count_text(n: int, room: int) -> str:
    """A count in the counts font within ``room`` px: as many digits as fit,
    then k/M; a count too big even so is shown as the biggest that fits."""
    font, _ = role("counts")
    for cap in (n, 999_999, 99_999, 999, 99, 9):
        for digits in (4, 3, 2, 1):
            shown = widgets.number(min(n, cap), digits)
            if text.width(shown, font) <= room:
                return shown
    return ""


def draw_switch_test(canvas: ImageDraw.ImageDraw, s: SwitchTestScreen) -> None:
    font, _ = role("tiles")
    small, _ = role("counts")
    tiles = max(0, min(s.tiles, 16))     # 12 is the most a box has; 16 still fit
    grid = _grid(tiles)
    down = set(s.down)
    per_row = max((len(r) for r in grid), default=1)
    cell = min(32, RIGHT // per_row)
    label_w = max((text.width(str(t), font) for t in range(1, tiles + 1)), default=0)
    if label_w + 2 * (BOX_PAD + 1) > cell - 4:   # two-digit numbers in narrow cells
        font = NARROW
        label_w = max(text.width(str(t), font) for t in range(1, tiles + 1))
    box_w = min(cell - 4, max(13, label_w + 2 * (BOX_PAD + 1)))
    box_h = font.height + 4
    row_h = box_h + 1 + small.height
    y = 1
    for numbers in grid:
        x = (RIGHT - cell * len(numbers)) // 2
        for t in numbers:
            bx = x + (cell - box_w) // 2
            closed = t in down
            canvas.rectangle((bx, y, bx + box_w - 1, y + box_h - 1), outline=1,
                             fill=1 if closed else 0)
            label = str(t)
            lx = bx + (box_w - text.width(label, font)) // 2
            text.draw(canvas, lx, y + 2, label, font, fill=0 if closed else 1)
            count = s.counts[t - 1] if t - 1 < len(s.counts) else 0
            shown = count_text(count, cell - 2)
            text.draw(canvas, text.centred_x(shown, small, x, x + cell), y + box_h + 1,
                      shown, small)
            x += cell
        y += row_h + 2

    # the buttons' press counts, then what to do
    prompt_top = _prompt(canvas, s.prompt) if s.prompt else BOTTOM
    buttons_y = y + max(0, (prompt_top - y - small.height) // 2) - 1
    halves = [("ROLL", s.roll), ("NEXT", s.next)]
    for i, (button, count) in enumerate(halves):
        label = f"{button} {widgets.number(count, 5)}"
        left = i * (RIGHT // 2)
        x = text.centred_x(label, small, left, left + RIGHT // 2)
        held = button in s.held          # down now: inverted, as a closed flap is filled
        if held:
            canvas.rectangle((x - 2, buttons_y - 1, x + text.width(label, small) + 1,
                              buttons_y + small.height), fill=1)
        text.draw(canvas, x, buttons_y, label, small, fill=0 if held else 1)
