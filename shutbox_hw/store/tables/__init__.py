"""What the record's file holds: the schema and its migrations, a game's record, the kept tallies
(figures, player stats, ratings), the roster, the outbox."""
