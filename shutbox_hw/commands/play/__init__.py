"""Commands about the game itself: rules, moves, solve, the simulator."""
