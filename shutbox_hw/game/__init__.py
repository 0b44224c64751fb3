"""The game on the box: a pure controller (events in, effects out) and what it shows."""
