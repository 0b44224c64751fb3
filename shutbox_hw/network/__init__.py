"""The box on the pub's network: the MQTT outbox's publisher, Home Assistant
discovery, the live summary both the broker and the web pages show, and
``shutbox-hw web``. Everything here is optional (the ``mqtt`` and ``web``
extras): the box plays the same without it."""
