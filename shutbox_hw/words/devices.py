"""The box's parts and their faults in the box's language, as the OLED and
the audits name them. The parts report in English (the journal and the
recorded events keep those words); known words are translated here, a
detail that is not (an I2C error's text) is shown as reported."""

from __future__ import annotations

import re

from ..base.i18n import N_, language, tr

# hal/adapters/dice_source.py, hal/adapters/oled_display.py, hal/contracts/debounce.py,
# hal/adapters/expander.py, daemon.py,
# store/disk/mounts.py ("record"), store/disk/backup.py ("backup")
DEVICES = frozenset((N_("dice module"), N_("display"), N_("storage"), N_("record"),
                     N_("backup"), N_("software")))
MESSAGES = frozenset((N_("switch chattering"), N_("switch settled again"),
                      N_("no answer: software dice"), N_("answers again"),
                      N_("registers were reset (brownout?)"), N_("reconfigured after reset"),
                      N_("answering again"), N_("saved"),
                      # store/disk/mounts.py, store/disk/salvage.py, store/disk/backup.py
                      N_("kept in RAM, lost at power-off"),
                      N_("record damaged: no games recovered"), N_("copy taken")))
# what follows "cannot save: " (store/disk/faults.py fault_text, daemon.py) and a backup's
# "failed: " (store/disk/backup.py _short; an operating system's own words stay as they are)
CAUSES = frozenset((N_("disk full"), N_("database locked"), N_("disk error"),
                    N_("SD card read-only"), N_("record damaged"),
                    N_("record no longer a database"), N_("record's folder gone"),
                    N_("record file gone"), N_("program error"), N_("place not there"),
                    N_("place on the record's disk")))
GROUPING = {"de": ".", "it": "."}   # thousands: "1.234" (Babel's, without Babel on the box)
SALVAGED = re.compile(r"record damaged: ([\d,]+) of ([\d,]+) games recovered")


def device(source: str) -> str:
    """A part's name: "flap 3" -> "Klappe 3", "display" -> "Display"."""
    if source in DEVICES:
        return tr(source)
    kind, _sep, number = source.partition(" ")
    if kind == "flap" and number.isdigit():
        return tr("flap {n}").format(n=number)
    return source


def fault(source: str, message: str) -> str:
    """The problem bar's line for a part's fault."""
    return tr("{device}: {problem}").format(device=device(source), problem=problem(message))


def problem(message: str) -> str:
    """A part's fault without the part's name, in the box's language."""
    salvaged = SALVAGED.fullmatch(message)
    if message in MESSAGES:
        return tr(message)
    if message.startswith("cannot save: "):
        return tr("cannot save: {why}").format(
            why=cause(message.removeprefix("cannot save: ")))
    if message.startswith("failed: "):
        return tr("failed: {why}").format(why=cause(message.removeprefix("failed: ")))
    if salvaged:
        # TRANSLATORS: a damaged record salvaged at start; the numbers are games
        return tr("record damaged: {recovered} of {known} games recovered").format(
            recovered=_number(salvaged.group(1)), known=_number(salvaged.group(2)))
    return message


def cause(why: str) -> str:
    """Why a write or a backup failed, translated where the words are the box's own."""
    return tr(why) if why in CAUSES else why


def _number(digits: str) -> str:
    """A count as the English line wrote it ("1,234"), in this language's grouping
    (the comma is a decimal point in German and Italian)."""
    grouped = f"{int(digits.replace(',', '')):,}"
    return grouped.replace(",", GROUPING.get(language(), ","))
