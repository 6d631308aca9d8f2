#!/usr/bin/env python3
"""Minimal bulk TCP sender/receiver for netcluster.sh check when iperf3 is missing.

  tcpbulk.py server BIND_ADDR PORT          accept one connection, read to EOF,
                                            print received goodput (bit/s)
  tcpbulk.py client BIND_ADDR DST PORT SEC  send for SEC seconds
"""
import socket
import sys
import time


def server(bind, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((bind, port))
    s.listen(1)
    s.settimeout(30)
    c, _ = s.accept()
    n = 0
    t0 = time.monotonic()
    buf = bytearray(1 << 20)
    while True:
        k = c.recv_into(buf)
        if not k:
            break
        n += k
    dt = time.monotonic() - t0
    print(f"{n * 8 / dt:.0f}")


def client(bind, dst, port, sec):
    for _ in range(50):  # the server may still be starting
        try:
            s = socket.create_connection((dst, port), timeout=5, source_address=(bind, 0))
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit("tcpbulk: cannot connect")
    data = b"\0" * (1 << 20)
    end = time.monotonic() + sec
    while time.monotonic() < end:
        s.sendall(data)
    s.close()


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "server" and len(a) == 3:
        server(a[1], int(a[2]))
    elif a and a[0] == "client" and len(a) == 5:
        client(a[1], a[2], int(a[3]), float(a[4]))
    else:
        sys.exit(__doc__)
