"""The register map the Pi sees, and the CRC-8 that guards the result.

The Pico serves a 16-byte memory as an I2C target: the Pi writes a register
number, then reads or writes from there on (the address wraps at the end).

| reg  | name    | who     | meaning |
|------|---------|---------|---------|
| 0x00 | MAGIC0  | module  | 0x53 ('S') |
| 0x01 | MAGIC1  | module  | 0x44 ('D') |
| 0x02 | FW_MAJOR| module  | register map version: the Pi refuses another major |
| 0x03 | FW_MINOR| module  | firmware revision |
| 0x04 | STATUS  | module  | 0 idle, 1 rolling, 2 result ready, 3 error |
| 0x05 | ERROR   | module  | why STATUS is 3: 1 bad COUNT, 2 bad REQUEST; 0 none |
| 0x06 | COUNT   | Pi      | dice for the next throw, 1 or 2 (power-on: 2) |
| 0x07 | REQUEST | Pi      | write 0x52 ('R') to throw; the module clears it |
| 0x08 | ACK     | Pi      | write the SEQ you consumed: releases READY |
| 0x09 | BOOT    | module  | random 1..255 drawn at power-on (SEQ restarts with it) |
| 0x0A | SEQ     | module  | 1..255 then 1 again, +1 for every result; 0 = none yet |
| 0x0B | RCOUNT  | module  | dice in this result (1 or 2) |
| 0x0C | FACE1   | module  | 1..6 |
| 0x0D | FACE2   | module  | 1..6, 0 with one die |
| 0x0E | SOURCE  | module  | 1 the module's button, 2 a shake, 3 the Pi's REQUEST |
| 0x0F | CRC     | module  | CRC-8 over 0x09..0x0E |

CRC-8: polynomial 0x07 (x^8+x^2+x+1), initial value 0, MSB first, no final
XOR: the SMBus PEC CRC ("CRC-8/SMBUS", check value 0xF4 for b"123456789").
"""

MAGIC = b"SD"
FW_MAJOR = 1
FW_MINOR = 0

MAGIC0 = 0x00
MAGIC1 = 0x01
REG_FW_MAJOR = 0x02
REG_FW_MINOR = 0x03
STATUS = 0x04
ERROR = 0x05
COUNT = 0x06
REQUEST = 0x07
ACK = 0x08
BOOT = 0x09
SEQ = 0x0A
RCOUNT = 0x0B
FACE1 = 0x0C
FACE2 = 0x0D
SOURCE = 0x0E
CRC = 0x0F
MEM_SIZE = 16

RESULT_FIRST = BOOT       # the CRC covers BOOT..SOURCE
RESULT_LEN = CRC - BOOT   # 6 bytes

PI_WRITES = (COUNT, REQUEST, ACK)   # every other register is the module's

STATUS_IDLE = 0
STATUS_ROLLING = 1
STATUS_READY = 2
STATUS_ERROR = 3

ERROR_NONE = 0
ERROR_BAD_COUNT = 1
ERROR_BAD_REQUEST = 2

REQUEST_NONE = 0
REQUEST_ROLL = 0x52

SOURCE_BUTTON = 1
SOURCE_SHAKE = 2
SOURCE_REQUEST = 3

MAX_DICE = 2


def crc8(data, crc=0):
    """CRC-8/SMBUS of ``data`` (bytes or a list of ints), continuing from ``crc``."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            if crc & 0x80:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
    return crc


def next_seq(seq):
    """The sequence number after ``seq``: 1..255, never 0 (0 means no result yet)."""
    return seq % 255 + 1
