"""zcoll_units - sizes, rates and times for zcoll's Python scripts.

The Python twin of src/core/units.h, with the same rules (docs/env.md, "Units");
tests/unit/units_py_test.py checks both against the same cases.

  size  number + optional K/M/G/T (either case) + optional "i" + optional "B".
        Bare prefix or "i": binary ("64K" = "64KiB" = 65536); prefix + "B"
        without "i": decimal ("1MB" = 10**6). A whole number below 2**64.
  rate  number + optional prefix + unit ("B" or "bit"/"bits", any case) +
        optional "/s", in bytes per second. Prefixes are decimal unless
        followed by "i" ("1gbit" = 1.25e8, "1GiB/s" = 2**30). A bare number is
        bytes/s; a prefix needs its unit; "b", "bps" and "Bps" are refused. > 0.
  time  number + optional "s", "ms", "us", "ns" (either case), in seconds.

Numbers: digits with an optional fraction and exponent; no sign, spaces, hex,
inf or nan. Every parser raises ValueError on anything else.

    sys.path.insert(0, os.path.join(REPO, "tools", "common"))
    import zcoll_units
"""
import math
import re
from fractions import Fraction

__all__ = ["parse_number", "parse_size", "parse_rate", "parse_time", "rate_bps", "format_size"]

_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_POWER = {"k": 1, "m": 2, "g": 3, "t": 4}
_SIZE = re.compile(rf"({_NUMBER})(?:([kKmMgGtT])([iI]?)(B?)|(B?))")
_RATE = re.compile(rf"({_NUMBER})([kKmMgGtT]?)([iI]?)(B|[bB][iI][tT][sS]?|)(/[sS])?")
_TIME = re.compile(rf"({_NUMBER})(s|ms|us|ns|)", re.I)


def _float(text):
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"number out of range: {text!r}")
    return v


def parse_number(text):
    """'0.5', '1e-4' -> float (>= 0)."""
    if not isinstance(text, str) or not re.fullmatch(_NUMBER, text):
        raise ValueError(f"bad number {text!r}")
    return _float(text)


def parse_size(text):
    """'64K', '1MiB', '646MB', '65536' -> int bytes (or values)."""
    m = _SIZE.fullmatch(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"bad size {text!r} (e.g. 65536, 64K, 1M, 1MiB, 646MB)")
    num, prefix, i, b = m.group(1), m.group(2), m.group(3), m.group(4)
    power = _POWER[prefix.lower()] if prefix else 0
    base = 1000 if (prefix and b and not i) else 1024
    if re.fullmatch(r"[0-9]+", num):
        v = int(num) * base ** power
    else:  # exact, like the C++ parser's long double for these inputs
        _float(num)
        v = Fraction(num) * base ** power
        if v.denominator != 1:
            raise ValueError(f"bad size {text!r}: not a whole number")
        v = int(v)
    if v >= 1 << 64:
        raise ValueError(f"bad size {text!r}: too large")
    return v


def parse_rate(text):
    """'1gbit', '2.5Gbit/s', '100MB/s', '3e9' -> bytes per second (float > 0)."""
    m = _RATE.fullmatch(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"bad rate {text!r} (e.g. 1gbit, 500mbit, 2.5Gbit/s, 100MB/s, 3e9)")
    num, prefix, i, unit = m.group(1), m.group(2), m.group(3), m.group(4)
    if (i and not prefix) or (prefix and not unit):
        raise ValueError(f"bad rate {text!r}: a prefix needs its unit (1Gbit or 1GB)")
    power = _POWER[prefix.lower()] if prefix else 0
    v = _float(num) * (1024 if i else 1000) ** power / (1 if unit in ("", "B") else 8)
    if not (v > 0) or not math.isfinite(v):
        raise ValueError(f"bad rate {text!r}: must be > 0")
    return v


def rate_bps(text):
    """A rate in bits per second (what tc and link speeds are quoted in)."""
    return parse_rate(text) * 8


def parse_time(text):
    """'2us', '10ms', '1e-6', '2s' -> seconds (float)."""
    m = _TIME.fullmatch(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"bad time {text!r} (e.g. 2us, 10ms, 1e-6)")
    return _float(m.group(1)) * {"": 1, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[m.group(2).lower()]


def format_size(b):
    """The shortest exact binary form: 65536 -> '64K', 1536 -> '1536'."""
    for power, suffix in ((4, "T"), (3, "G"), (2, "M"), (1, "K")):
        if b and b % (1 << (10 * power)) == 0:
            return f"{b >> (10 * power)}{suffix}"
    return str(b)
