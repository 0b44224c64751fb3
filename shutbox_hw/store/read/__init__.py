"""The record's read side: history, the audit, high scores, tonight, what was shown, a player's
games, how readers open the file."""
