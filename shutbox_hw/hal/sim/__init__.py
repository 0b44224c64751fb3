"""Simulated hardware for tests and the simulator: an I2C bus, an MCP23017
register model, bouncing switches and a virtual time line to run them on."""

from .bus import SimBus
from .mcp23017 import SimMcp23017
from .world import SimSwitch, SimWorld, expander_pin_setter, mock_pin_setter

__all__ = ["SimBus", "SimMcp23017", "SimSwitch", "SimWorld", "expander_pin_setter",
           "mock_pin_setter"]
