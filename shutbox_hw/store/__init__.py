"""SQLite persistence: every game event recorded, unfinished games resumed."""

from .sqlite import Store, StoreError

__all__ = ["Store", "StoreError"]
