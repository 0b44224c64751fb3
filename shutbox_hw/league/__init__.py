"""The league (issue 40): every box's ended games in one PostgreSQL database, exactly once.

- :mod:`.schema`: the league's tables and their versioned migrations
  (``shutbox-hw league migrate --dsn DSN``);
- :mod:`.record`: one game message written in a transaction keyed by
  (box, epoch, game id): a duplicate dropped, a different duplicate or a message
  for another box kept aside and reported;
- :mod:`.ingest`: ``shutbox-hw league ingest``, an MQTT 5 shared subscriber
  that acknowledges each message only after its commit, and asks the boxes for
  the games still missing after a grace period;
- :mod:`.status`: ``shutbox-hw league status``;
- :mod:`.standings`: seasons (``shutbox-hw league season``) and their standings
  (``shutbox-hw league standings``), issue 41;
- :mod:`.ratings`: the results rating (openskill's Plackett-Luce) and the accuracy
  bands, and the kept ratings and standings (``shutbox-hw league ratings``, run by
  the ingest as games arrive);
- :mod:`.rebuild`: ``shutbox-hw league rebuild``, every kept value computed again from
  the games and compared.

The box never imports this package (its dependencies are the ``league`` extra).
docs/network/league.md is the organiser's page.
"""
