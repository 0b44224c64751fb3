"""The hardware's contracts (the ports, the I2C bus, the clock) and what every backend shares."""
