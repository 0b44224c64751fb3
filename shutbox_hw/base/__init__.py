"""Plain values, time and errors: what every layer above may import (nothing of the box's own)."""
