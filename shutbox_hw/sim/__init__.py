"""``shutbox-hw sim``: the real daemon wired to the simulated box."""
