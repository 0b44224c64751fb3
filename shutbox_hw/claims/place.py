"""Where the claims socket of a box playing on a given record is.

The box's daemon listens where ``[network] claims_socket`` says, else in its runtime
directory (:attr:`~shutbox_hw.config.network.NetworkConfig.claims_path`). A simulated
box (``shutbox-hw sim --db``) never takes the real box's socket: unless the key names
one, it listens beside the mirror of its record (:func:`~shutbox_hw.store.read.shown.folder`,
``claims-<the mirror's key>.sock``), so two simulators never share one and ``web --db``
on the same record finds it (:func:`for_web`) with no config at all.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..config.network import DEFAULT_RUNTIME, NetworkConfig
from ..store.read.shown import _fallback, _ours, mirror_path
from .server import ClaimsUnavailable


def beside_record(db: str | Path) -> Path:
    """The simulator's socket for the record at ``db`` (any spelling of the same file)."""
    mirror = mirror_path(db)
    return mirror.with_name("claims-" + mirror.stem.removeprefix("shown-") + ".sock")


def for_simulator(network: NetworkConfig, db: str | Path) -> str | None:
    """Where ``sim --db`` listens (None: ``claims_socket = ""``, off); the temporary
    folder beside the record made first if it is the one (ClaimsUnavailable: it is
    another user's)."""
    if network.claims_socket is not None:
        return network.claims_path
    place = beside_record(db)
    # the temporary folder made as the mirror makes it (mode 0755); one another user
    # made there is not used (it could put its own socket in the web's way)
    if place.parent == _fallback(db) and not _ours(place.parent):
        raise ClaimsUnavailable(f"{place.parent} is not this user's folder")
    return str(place)


def for_web(network: NetworkConfig, db: str | Path) -> str | None:
    """Where ``web`` asks for the box on the record at ``db``: the key's socket; else a
    simulator's beside that record if one listens there; else the box's, where a box
    runs on this machine (its runtime directory is there); else the place a simulator
    started later on that record listens."""
    if network.claims_socket is not None:
        return network.claims_path
    beside = beside_record(db)
    if beside.exists():
        return str(beside)
    if os.environ.get("RUNTIME_DIRECTORY") or Path(DEFAULT_RUNTIME).is_dir():
        return network.claims_path
    return str(beside)
