"""The box's daemon: ports in, the referee, effects out; its queue of work; systemd's notify."""
