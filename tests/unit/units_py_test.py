#!/usr/bin/env python3
"""units_py_test.py - tools/common/zcoll_units.py, the Python twin of src/core/units.h.

    python3 tests/unit/units_py_test.py [path/to/zcoll-env]

Checks the documented rules, then (given zcoll-env) that the C++ parser reads
every case the same way (`zcoll-env --parse`). CTest runs it as unit.units_py.
"""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "common"))
import zcoll_units as u  # noqa: E402

if __name__ == "__main__" and len(sys.argv) > 1:
    os.environ["ZCOLL_ENV_BIN"] = os.path.abspath(sys.argv.pop(1))

SIZES = ["0", "65536", "64K", "64k", "64Ki", "64KiB", "1M", "1m", "1MiB", "2G", "1T", "100B", "1.5K",
         "0.5M", "1e3", "1kB", "1KB", "1MB", "646MB", "2GB", "1.5MB", "18446744073709551615",
         "16777215T", "18446744073709551616", "16777216T", "1e20", "1e400", "", " ", " 1K", "1K ",
         "-1", "+1", "K", "1X", "1KK", "1Kb", "1kb", "1b", "1iB", "1KBi", "0x10", "inf", "nan",
         "1,5K", "0.5", "1.1", "1e", "1e+", "e3", ".", "1..2", "1 K", "1P", "1E", "1KiBs", "3.", ".5K"]
RATES = ["1gbit", "1Gbit", "1GBIT", "500mbit", "2.5Gbit/s", "10Gbits/s", "8bit", "100MB/s", "12.5GB",
         "12.5gB", "3e9", "3e9B/s", "1GiB/s", "1Kibit", "1kB", "", "0", "0gbit", "-1gbit", "fast",
         "1G", "1g", "1Gi", "1Gb", "1gb", "1Gbps", "1GBps", "1bps", "1b", "1G/s", "1gbit/",
         "1gbit/S/s", "1 gbit", "1gbit ", "inf", "1e999", "1Pbit", "1gbyte", "1gbitps", "1ibit",
         "1/s", "7B/S"]
TIMES = ["0", "2", "2s", "10ms", "10MS", "500us", "20us", "3ns", "1e-6", "1.5e3ms", "", "-1", "-1ms",
         "1m", "1min", "1h", "ms", "1 ms", "1ms ", "1sec", "1e999", "inf", "nan", "1.2.3s"]


def py(parse, text):
    try:
        return parse(text)
    except ValueError:
        return None


class Rules(unittest.TestCase):
    def test_sizes(self):
        self.assertEqual(u.parse_size("64K"), 65536)
        self.assertEqual(u.parse_size("64KiB"), 65536)
        self.assertEqual(u.parse_size("1m"), 1 << 20)
        self.assertEqual(u.parse_size("1MB"), 10 ** 6)
        self.assertEqual(u.parse_size("646MB"), 646 * 10 ** 6)
        self.assertEqual(u.parse_size("1.5K"), 1536)
        self.assertEqual(u.parse_size("18446744073709551615"), (1 << 64) - 1)
        for bad in ("0.5", "-1", "1kb", "1 K", "18446744073709551616", "1e20", "1P", "", None):
            with self.assertRaises(ValueError, msg=bad):
                u.parse_size(bad)

    def test_rates(self):
        self.assertEqual(u.parse_rate("1gbit"), 1.25e8)
        self.assertEqual(u.rate_bps("1gbit"), 1e9)
        self.assertEqual(u.rate_bps("500mbit"), 5e8)
        self.assertEqual(u.parse_rate("2.5Gbit/s"), 3.125e8)
        self.assertEqual(u.parse_rate("100MB/s"), 1e8)
        self.assertEqual(u.parse_rate("1GiB/s"), 2.0 ** 30)
        self.assertEqual(u.parse_rate("3e9"), 3e9)
        for bad in ("1G", "1gbps", "1Gb", "0", "-1gbit", "fast", "1e999", ""):
            with self.assertRaises(ValueError, msg=bad):
                u.parse_rate(bad)

    def test_times(self):
        self.assertEqual(u.parse_time("10ms"), 0.01)
        self.assertEqual(u.parse_time("500us"), 5e-4)
        self.assertEqual(u.parse_time("2"), 2)
        for bad in ("1m", "-1s", "1 s", ""):
            with self.assertRaises(ValueError, msg=bad):
                u.parse_time(bad)

    def test_format(self):
        self.assertEqual(u.format_size(65536), "64K")
        self.assertEqual(u.format_size(1536), "1536")
        self.assertEqual(u.format_size(0), "0")
        self.assertEqual(u.format_size(3 << 30), "3G")
        self.assertEqual(u.format_size(1 << 50), "1024T")


@unittest.skipUnless(os.environ.get("ZCOLL_ENV_BIN"), "needs zcoll-env (argument 1)")
class SameAsCxx(unittest.TestCase):
    def cxx(self, kind, texts):
        out = subprocess.run([os.environ["ZCOLL_ENV_BIN"], "--parse", kind, *texts], check=True,
                             capture_output=True, text=True).stdout.splitlines()
        self.assertEqual(len(out), len(texts))
        return [None if line == "invalid" else (int(line) if kind == "size" else float(line)) for line in out]

    def check(self, kind, parse, texts):
        for text, c in zip(texts, self.cxx(kind, texts)):
            self.assertEqual(py(parse, text), c, f"{kind} {text!r}: Python vs C++")

    def test_sizes(self):
        self.check("size", u.parse_size, SIZES)

    def test_rates(self):
        self.check("rate", u.parse_rate, RATES)

    def test_times(self):
        self.check("time", u.parse_time, TIMES)


if __name__ == "__main__":
    unittest.main(verbosity=1)
