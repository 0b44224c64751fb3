"""Commands that run and look after the box: run, selftest, check-config, restore, the boot
option."""
