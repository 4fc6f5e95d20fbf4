#!/usr/bin/env python3
"""Sends standard input's bytes on one connection to HOST PORT and prints, as one JSON object,
the answer's status line and whether the server closed the connection within WAIT seconds
(default 30) after the answer: {"status": "HTTP/1.1 200 OK", "closed": true, "bytes": N}.

usage: http-raw.py HOST PORT [WAIT]
"""
import json
import socket
import sys
import time

host, port = sys.argv[1], int(sys.argv[2])
wait = float(sys.argv[3]) if len(sys.argv) > 3 else 30
request = sys.stdin.buffer.read()
s = socket.create_connection((host, port), timeout=wait)
s.sendall(request)
answer = b""
closed = False
deadline = time.monotonic() + wait
try:
    while time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        chunk = s.recv(65536)
        if not chunk:
            closed = True
            break
        answer += chunk
except socket.timeout:
    pass
except ConnectionResetError:
    closed = True
print(json.dumps({"status": answer.split(b"\r\n", 1)[0].decode(errors="replace"), "closed": closed, "bytes": len(answer)}))
