"""The box's parts and their faults in the box's language, as the OLED and
the audits name them. The parts report in English (the journal and the
recorded events keep those words); known words are translated here, a
detail that is not (an I2C error's text) is shown as reported."""

from __future__ import annotations

from ..i18n import N_, tr

# hal/dice_source.py, hal/oled_display.py, hal/debounce.py, hal/expander.py, daemon.py
DEVICES = frozenset((N_("dice module"), N_("display"), N_("storage")))
MESSAGES = frozenset((N_("switch chattering"), N_("switch settled again"),
                      N_("no answer: software dice"), N_("answers again"),
                      N_("registers were reset (brownout?)"), N_("reconfigured after reset"),
                      N_("answering again"), N_("saved")))


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
    if message in MESSAGES:
        message = tr(message)
    elif message.startswith("cannot save: "):
        message = tr("cannot save: {why}").format(why=message.removeprefix("cannot save: "))
    return tr("{device}: {problem}").format(device=device(source), problem=message)
