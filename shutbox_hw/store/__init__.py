"""SQLite persistence: every game event recorded, unfinished games resumed."""

from .disk.faults import StorageFault, StoreError
from .write.sqlite import Store

__all__ = ["StorageFault", "Store", "StoreError"]
