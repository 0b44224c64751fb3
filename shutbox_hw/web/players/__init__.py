"""The players' pages: the leaderboard, each player's page with its charts and
downloads, and the high scores (issue 34)."""
