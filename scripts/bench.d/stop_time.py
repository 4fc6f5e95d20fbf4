#!/usr/bin/env python3
"""How long a stop takes, from the signal to the exit (issue 28: at most 3 s).

Cases: one camera recording (SIGTERM, SIGQUIT, SIGINT); six cameras with MQTT to a broker that
accepts TCP and never answers (SIGTERM); the same with a broker that refuses connections; and
everything at once: six cameras recording, the silent broker, the web server with a stream and an
event client that never read.
Usage: scripts/bench.d/stop_time.py [LOOKOUT_BINARY] [REPEATS]  (default .build/debug/lookout, 3)
Prints one line per case: the stop times in seconds, and the worst.
"""
import os, signal, socket, subprocess, sys, tempfile, threading, time

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/debug/lookout")
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
work = tempfile.mkdtemp(prefix="lookout-stop-")
clip = os.path.join(work, "clip.mjpeg")
subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10",
                "-t", "120", "-f", "mjpeg", clip], check=True)


def silent_broker():
    """A TCP listener that accepts and never answers; returns (port, accepted-count getter)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held = []
    def accept():
        while True:
            held.append(server.accept())
    threading.Thread(target=accept, daemon=True).start()
    return server.getsockname()[1], lambda: len(held)


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stop_time(arguments, ready, number):
    """Starts lookout, waits until `ready()` (or 60 s), sends `number`; seconds to the exit."""
    errors = tempfile.TemporaryFile()
    process = subprocess.Popen([binary, "run"] + arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=errors)
    deadline = time.monotonic() + 60
    while not ready() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1)  # a second of running, so there is something to stop
    start = time.monotonic()
    process.send_signal(number)
    status = process.wait(timeout=60)
    elapsed = time.monotonic() - start
    errors.seek(0)
    said = errors.read().decode(errors="replace").strip().splitlines()
    return elapsed, status, said


def clips_started(directory):
    return lambda: os.path.isdir(directory) and any(name.endswith(".mkv") for name in os.listdir(directory))


cases = []
for number in (signal.SIGTERM, signal.SIGQUIT, signal.SIGINT):
    def run(number=number):
        directory = tempfile.mkdtemp(dir=work)
        return stop_time(["--input", clip, "--fps", "10", "--realtime", "--record", directory, "--record-on", "always"],
                         clips_started(directory), number)
    cases.append((f"one camera recording, {signal.Signals(number).name}", run))


def six_cameras(port, ready, extra=()):
    inputs = sum((["--input", f"cam{index}={clip}"] for index in range(1, 7)), [])
    return stop_time(inputs + ["--fps", "10", "--realtime", "--mqtt", f"mqtt://127.0.0.1:{port}/lookout"] + list(extra),
                     ready, signal.SIGTERM)


def everything():
    port, accepted = silent_broker()
    http = closed_port()
    directory = tempfile.mkdtemp(dir=work)
    clients = []
    def ready():
        if accepted() < 7:
            return False
        if not clients:
            for path in ("/api/stream.mjpeg", "/api/events"):
                try:
                    client = socket.create_connection(("127.0.0.1", http), timeout=1)
                except OSError:
                    return False
                client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                clients.append(client)  # never read
        return True
    try:
        return six_cameras(port, ready, ["--http", f"127.0.0.1:{http}", "--record", directory, "--record-on", "always"])
    finally:
        for client in clients:
            client.close()


def silent():
    port, accepted = silent_broker()
    return six_cameras(port, lambda: accepted() >= 7)


cases.append(("six cameras, MQTT broker silent, SIGTERM", silent))
cases.append(("six cameras, MQTT broker refusing, SIGTERM", lambda: six_cameras(closed_port(), lambda: True)))
cases.append(("six cameras recording, silent broker, web clients that never read, SIGTERM", everything))

worst = 0.0
for name, run in cases:
    times = []
    for _ in range(repeats):
        elapsed, status, said = run()
        times.append(elapsed)
        last = said[-1] if said else ""
    worst = max(worst, max(times))
    print(f"{name}: {' '.join(f'{t:.2f}' for t in times)} s (status {status}; last line: {last})")
print(f"worst stop: {worst:.2f} s")
