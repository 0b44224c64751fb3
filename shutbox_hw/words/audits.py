"""The audits in words: the operator menu's lines and ``shutbox-hw audit``'s table,
made from the plain figures the record's reader gives (``audits`` in
:mod:`~..store.read.audit`, the dict ``audit --json`` prints).

They are written in English, as the CLI prints them; the menu's screen
(:mod:`~..game.display.service_view`) says the labels and the figures in the
box's language.
"""

from __future__ import annotations

from typing import Any

from ..rules.ruleset import preset_title

ROW_SEP = "\t"   # a box line "label<TAB>value"; a line without one is a heading

Rows = list[tuple[str, str | None]]


def audit_rows(a: dict[str, Any]) -> Rows:
    """The audits under headings that give their units: ``(heading, None)``
    then ``(label, value)`` rows. A button's count sits under "button presses"
    ("NEXT 8812"), never as "NEXT: 8812", which read as a button prompt. With
    ``last_backup`` (``{"age_s": seconds or None}``) the newest copy's age
    ends the "storage" rows."""
    rows: Rows = [
        ("games", None), ("played", str(a["games"])), ("rounds", str(a["rounds"])),
        ("boxes shut", str(a["boxes_shut"]))]
    if a["average_score"]:
        rows.append(("avg score a turn", None))
        rows += [(preset_title(p), f"{v:g}") for p, v in a["average_score"].items()]
    if a["best"]:
        rows.append(("best turns", None))
        rows += [(b["name"] + (f" {b['date']}" if b["date"] else ""), str(b["score"]))
                 for b in a["best"]]
    flaps = {k: v for k, v in a["switches"].items() if k.startswith("flap")}
    buttons = {k: v for k, v in a["switches"].items() if k not in flaps}
    if flaps:
        rows.append(("flap moves", None))
        rows += [(name, str(n)) for name, n in flaps.items()]
    if buttons:
        rows.append(("button presses", None))
        rows += [(name, str(n)) for name, n in buttons.items()]
    if a["faults"]:
        rows.append(("faults", None))
        rows += [(device, str(n)) for device, n in a["faults"].items()]
    return rows + storage_rows(a)


def storage_rows(a: dict[str, Any]) -> Rows:
    """The database's size and the MQTT outbox's backlog (what a broker away for
    long leaves waiting, and what its cap dropped), and the newest backup's age."""
    rows: Rows = [("storage", None), ("database", f"{a['database_bytes'] / 1e6:.1f} MB")]
    outbox = a.get("outbox")
    if outbox and (outbox["queued"] or outbox["dropped"]):
        rows.append(("outbox queued", str(outbox["queued"])))
        if outbox["dropped"]:
            rows.append(("outbox dropped", str(outbox["dropped"])))
    backup = a.get("last_backup")
    if backup is not None:
        age = backup["age_s"]
        rows.append(("last backup", "none yet" if age is None else age_words(age)))
    return rows


def age_words(seconds: float) -> str:
    """How long ago, in a few characters for the menu's audits: "40 min", "6 h", "3 days"."""
    minutes = max(0, int(seconds // 60))
    if minutes < 120:
        return f"{minutes} min"
    hours = minutes // 60
    return f"{hours} h" if hours < 48 else f"{hours // 24} days"


def audit_lines(a: dict[str, Any]) -> list[str]:
    """The audits as the box's menu shows them: a heading, or "label<TAB>value"
    (the menu draws the value at the right of its line)."""
    return [label if value is None else f"{label}{ROW_SEP}{value}"
            for label, value in audit_rows(a)]


def format_lines(a: dict[str, Any]) -> list[str]:
    """``shutbox-hw audit``: the box's headings and rows, the values in a column."""
    rows = audit_rows(a)
    width = max((len(label) for label, value in rows if value is not None), default=0)
    return [f"{label}:" if value is None else f"  {label.ljust(width)}  {value}"
            for label, value in rows]
