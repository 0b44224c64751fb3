"""What is shown, as pure functions of the referee's state: screens and LEDs, the ends' screens,
the service menu's screen, attract, the text, the referee's reasons in words, its observer."""
