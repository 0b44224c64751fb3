"""Commands that read the record: history, players, audit."""
