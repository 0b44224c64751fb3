"""The adapters behind the ports: Pi pins, MCP23017 expanders, the dice module, the OLED."""
