"""The disk's care: its faults in words, the fault log, salvage, mounts, backups, the lock."""
