"""The record's write side: the Store, each event's rows, forgetting a player, the box's own
settings."""
