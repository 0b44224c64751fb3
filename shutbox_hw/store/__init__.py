"""SQLite persistence: every game event recorded, unfinished games resumed."""

from .faults import StorageFault, StoreError
from .sqlite import Store

__all__ = ["StorageFault", "Store", "StoreError"]
