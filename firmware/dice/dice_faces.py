"""Fair faces from random bytes by rejection sampling.

A byte is 0..255; 256 is not a multiple of 6, so ``byte % 6`` would favour
1..4. Bytes 0..251 (252 = 6 * 42) map to ``byte % 6 + 1``, each face exactly
42 times; 252..255 are thrown away and another byte is read.
"""

ACCEPT_BELOW = 252      # the largest multiple of 6 that fits in a byte


def face_from_byte(byte):
    """The face a byte gives, or None if it must be rejected."""
    if byte < ACCEPT_BELOW:
        return byte % 6 + 1
    return None


def draw_face(entropy):
    """One face; ``entropy(n)`` returns n random bytes (``os.urandom``)."""
    while True:
        face = face_from_byte(entropy(1)[0])
        if face is not None:
            return face


def draw_faces(count, entropy):
    """``count`` independent faces, as a list."""
    return [draw_face(entropy) for _ in range(count)]
