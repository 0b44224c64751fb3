"""Seats claimed from a phone: the web process hands each claim to the daemon over a
local Unix socket (:mod:`.wire` the line protocol, :mod:`.server` the daemon's
listener, :mod:`.client` the web's side, :mod:`.desk` the daemon's join codes)."""
