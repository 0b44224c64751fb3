"""The referee, pure (events in, game events and dice out; nothing shown): the state machine, a
turn's flow, why it refuses as plain values, its observer, setting up a game, the ends scored,
advice, its effects."""
