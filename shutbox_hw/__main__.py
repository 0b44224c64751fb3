"""``python -m shutbox_hw``: the ``shutbox-hw`` command (:func:`.cli.main`) without its script."""

import sys

from .commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
