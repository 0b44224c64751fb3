"""The one command that writes the generated pages again (each page names it in
its head; :mod:`.__main__` runs it). A module of its own so the pages can import
it without importing the package that imports them."""

REGENERATE = ".venv/bin/python -m shutbox_hw.reference --write"
