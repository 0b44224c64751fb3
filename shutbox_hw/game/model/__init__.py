"""What the referee knows, pure: the game's state, the [game] table, the service menu's state,
the game events, seats from a phone, flaps, a saved game."""
