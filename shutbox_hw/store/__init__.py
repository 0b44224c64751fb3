"""SQLite persistence: every game event recorded, unfinished games resumed."""

from .sqlite import StorageFault, Store, StoreError

__all__ = ["StorageFault", "Store", "StoreError"]
