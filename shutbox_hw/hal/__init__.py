"""Hardware: ports the game depends on, real adapters and their simulations."""
