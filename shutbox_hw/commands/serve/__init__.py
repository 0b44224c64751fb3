"""Commands that serve others: the web pages, the league's server."""
