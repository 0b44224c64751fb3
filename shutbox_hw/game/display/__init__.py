"""What is shown, as pure functions of the referee's state: screens and LEDs, the ends' screens,
the service menu's screen, attract, the text."""
