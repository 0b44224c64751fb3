"""The referee, pure (events in, effects out): the controller, a turn's flow, setting up a game,
the ends scored, advice, the effects."""
