"""``shutbox-hw web``: the box's pages on the pub's network, in a process of its own.

It reads the database only (a read-only connection: a WAL reader never waits
for the box, and the box never waits for it) and notices the box's writes
through ``PRAGMA data_version``. Starlette on uvicorn (the ``web`` extra).
"""
