"""Not flashed: makes these files the package ``shutbox_hw.dice_firmware`` on the Pi
(setup.py maps it here), so the host driver and the simulated module import the
firmware's own register map, CRC and logic rather than a copy."""
