"""The game as the daemon drives it: the referee and what it shows, stepped together."""
