"""One module per ``shutbox-hw`` sub-command: ``add_parser`` and ``run``."""
