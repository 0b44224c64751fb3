"""The simulated box's own parts beside the HAL's simulated chips: its disk (``disk``), its
OLED panel that keeps every frame (``recorded_panel``) and its bounded memory (``recent``)."""
