"""The config file and its tables, the effective settings over it, the Pi's boot config."""
