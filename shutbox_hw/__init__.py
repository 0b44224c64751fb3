"""shutbox-hw: the software inside a pub's Shut the Box."""

__version__ = "0.1.0"
