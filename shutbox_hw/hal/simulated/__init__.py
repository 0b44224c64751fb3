"""Register-level simulated devices, for tests and the simulator (``shutbox_hw.sim``):
an I2C bus, an MCP23017 register model, the dice module, bouncing switches and a
virtual time line to run them on. The adapters drive them as they drive the real chips."""

from .bus import SimBus
from .mcp23017 import SimMcp23017
from .world import SimSwitch, SimWorld, expander_pin_setter, mock_pin_setter

__all__ = ["SimBus", "SimMcp23017", "SimSwitch", "SimWorld", "expander_pin_setter",
           "mock_pin_setter"]
