#!/usr/bin/env python3
"""Tries to hold Lookout's web server down, and probes it meanwhile.

usage: http-hold.py HOST PORT idle|trickle CONNECTIONS PROBES

idle: CONNECTIONS connections that send nothing (any the server closes is opened again, so the
  limit stays held); trickle: CONNECTIONS clients that send a request head one byte a second (a
  head that would take a minute to complete). Meanwhile PROBES fresh connections, one after the
  other, each ask for /healthz or / with a 10 s deadline. Prints one JSON object:
  {"probes_ok": N, "probes_failed": N, "failures": [...], "held": N,
   "trickles_closed_by_server": N, "trickles_completed": N, "probe_seconds_max": S}
(the slowest probe's time is a figure to read, not a test: tests do not assert speed)
"""
import json
import socket
import sys
import threading
import time

host, port, mode, count, probes = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
stop = threading.Event()
lock = threading.Lock()
# Told each time the attack moves on (a sweep of the idle connections, a byte trickled), so the
# probes wait on the attack, not on the clock.
progress = threading.Condition(lock)
ticks = 0
open_now = 0


def tick(opened=None):
    global ticks, open_now
    with progress:
        ticks += 1
        if opened is not None:
            open_now = opened
        progress.notify_all()
result = {"probes_ok": 0, "probes_failed": 0, "failures": [], "held": 0,
          "trickles_closed_by_server": 0, "trickles_completed": 0, "probe_seconds_max": 0.0}


def connect():
    return socket.create_connection((host, port), timeout=10)


def hold_idle():
    sockets = []
    while not stop.is_set():
        alive = []
        for s in sockets:
            # A closed connection reads as end of file (or reset); keep the ones still open.
            s.setblocking(False)
            try:
                if s.recv(1) == b"":
                    s.close()
                    continue
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                continue
            alive.append(s)
        sockets = alive
        while len(sockets) < count and not stop.is_set():
            try:
                sockets.append(connect())
            except OSError:
                break
        with lock:
            result["held"] = max(result["held"], len(sockets))
        tick(opened=len(sockets))
        stop.wait(0.2)
    for s in sockets:
        s.close()


HEAD = b"GET / HTTP/1.1\r\nHost: localhost\r\n" + b"X-Slow: " + b"a" * 60 + b"\r\n\r\n"


def trickle():
    while not stop.is_set():
        try:
            s = connect()
        except OSError:
            stop.wait(0.5)
            continue
        with lock:
            result["held"] += 1
        tick()
        closed = False
        for byte in HEAD:
            if stop.is_set():
                break
            try:
                s.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            tick()
            stop.wait(1)
        else:
            with lock:
                result["trickles_completed"] += 1
        if closed:
            with lock:
                result["trickles_closed_by_server"] += 1
        s.close()


def probe(path):
    try:
        s = connect()
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        deadline = time.monotonic() + 10
        while b"\r\n" not in answer and time.monotonic() < deadline:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            chunk = s.recv(4096)
            if not chunk:
                break
            answer += chunk
        s.close()
        line = answer.split(b"\r\n", 1)[0].decode(errors="replace")
        return line.startswith("HTTP/1.1 200") or (path == "/healthz" and line.startswith("HTTP/1.1 503")), line
    except OSError as error:
        return False, f"{path}: {error}"


workers = [threading.Thread(target=hold_idle if mode == "idle" else trickle) for _ in range(1 if mode == "idle" else count)]
for worker in workers:
    worker.start()
with progress:
    # The attack in place: every idle connection open, or every trickling client connected.
    progress.wait_for(lambda: (open_now >= count) if mode == "idle" else (result["held"] >= count), timeout=60)
for index in range(probes):
    started = time.monotonic()
    ok, line = probe("/healthz" if index % 2 == 0 else "/")
    with lock:
        result["probe_seconds_max"] = round(max(result["probe_seconds_max"], time.monotonic() - started), 3)
        result["probes_ok" if ok else "probes_failed"] += 1
        if not ok:
            result["failures"].append(line)
    # The next probe once the attack has moved on: a byte from every trickling client, or five
    # sweeps of the idle ones (about a second either way).
    with progress:
        seen = ticks
        progress.wait_for(lambda: ticks >= seen + (count if mode == "trickle" else 5), timeout=30)
stop.set()
for worker in workers:
    worker.join()
print(json.dumps(result))
