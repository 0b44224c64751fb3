"""``shutbox-hw league status``: per box and epoch, what the league holds and lacks."""

from __future__ import annotations

from typing import Any


def status(conn: Any) -> list[dict[str, Any]]:
    """One object per box and epoch: ``box``, ``venue``, ``epoch``, ``games`` (held),
    ``latest`` (the box's latest ended game as last reported), ``missing`` (the ids
    still asked for), ``asked`` (resend requests sent for them), ``set_aside``
    (messages kept aside that came on this box's topic: different duplicates of this
    epoch's games, and, counted on each of the box's epochs, messages for another box
    and unreadable ones), ``first_seen`` and ``last_seen`` (ISO 8601, UTC)."""
    rows = conn.execute(
        "SELECT e.box, b.venue, e.epoch, e.latest,"
        " (SELECT count(*) FROM games g WHERE g.box = e.box AND g.epoch = e.epoch),"
        " coalesce((SELECT array_agg(m.game ORDER BY m.game) FROM missing m"
        "  WHERE m.box = e.box AND m.epoch = e.epoch), '{}'),"
        " coalesce((SELECT sum(m.asks) FROM missing m"
        "  WHERE m.box = e.box AND m.epoch = e.epoch), 0),"
        " (SELECT count(*) FROM set_aside s WHERE s.box = e.box AND (s.epoch = e.epoch"
        "  OR s.epoch IS NULL OR NOT EXISTS (SELECT 1 FROM epochs x WHERE x.box = s.box"
        "  AND x.epoch = s.epoch))),"
        " to_char(e.first_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"
        " to_char(e.last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
        " FROM epochs e JOIN boxes b ON b.box = e.box ORDER BY e.box, e.first_seen").fetchall()
    return [{"box": box, "venue": venue, "epoch": epoch, "games": int(games),
             "latest": latest, "missing": list(missing), "asked": int(asked),
             "set_aside": int(aside), "first_seen": first, "last_seen": last}
            for box, venue, epoch, latest, games, missing, asked, aside, first, last in rows]


def set_aside(conn: Any) -> list[dict[str, Any]]:
    """Every message kept aside, oldest first (without its payload)."""
    rows = conn.execute(
        "SELECT id, to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),"
        " topic, box, epoch, game, reason FROM set_aside ORDER BY id").fetchall()
    return [{"id": i, "received_at": at, "topic": topic, "box": box, "epoch": epoch,
             "game": game, "reason": reason} for i, at, topic, box, epoch, game, reason in rows]
