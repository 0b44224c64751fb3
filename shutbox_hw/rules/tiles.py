"""Sets of tiles as bitmasks: bit t-1 stands for tile t.

Everything in the rules engine speaks masks; these helpers turn them into
the sorted tile lists people read and back.
"""

from __future__ import annotations

from collections.abc import Iterable

Mask = int


def mask_of(tiles: Iterable[int]) -> Mask:
    """The mask of a collection of tile numbers (1-based)."""
    mask = 0
    for tile in tiles:
        mask |= 1 << (tile - 1)
    return mask


def tiles_of(mask: Mask) -> list[int]:
    """The tile numbers in a mask, ascending."""
    tiles = []
    tile = 1
    while mask:
        if mask & 1:
            tiles.append(tile)
        mask >>= 1
        tile += 1
    return tiles


def full_board(n_tiles: int) -> Mask:
    """Every tile 1..n_tiles."""
    return (1 << n_tiles) - 1


def tile_bit(tile: int) -> Mask:
    return 1 << (tile - 1)


def is_subset(part: Mask, whole: Mask) -> bool:
    return part & ~whole == 0
