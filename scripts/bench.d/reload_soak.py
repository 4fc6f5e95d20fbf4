#!/usr/bin/env python3
"""What a running lookout holds before and after many reloads (issue 40's soak).

Runs `lookout run --config FILE` with MQTT (a mosquitto of its own) and the web server on, two
cameras on FIFOs kept open, then SIGHUPs it through cycles of six configurations: a third camera
added and removed, a camera restarted (its types changed), the shared parts rebuilt (a new preview
rate). Prints descriptors, child processes (zxing-cpp's helpers), threads and RSS before and after,
as JSON. Tests assert the behaviour (Tests/LookoutTests/ReloadLeakTests.swift); this measures.

Usage: scripts/bench.d/reload_soak.py [--binary .build/release/lookout] [--cycles 12] [--settle 10]
                                    [--no-mqtt] [--no-http] [--stderr]
"""
import argparse, json, os, signal, socket, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FRAME = open(os.path.join(ROOT, "Tests/Fixtures/frame0.jpg"), "rb").read()
SAMPLE = os.path.join(ROOT, "Tests/Fixtures/sample.mjpeg")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def feed(path):
    """Writes a frame every 0.2 s into the FIFO at `path` until its reader goes for good."""
    def run():
        try:
            with open(path, "wb", buffering=0) as fifo:
                while True:
                    fifo.write(FRAME)
                    time.sleep(0.2)
        except (BrokenPipeError, OSError):
            pass
    threading.Thread(target=run, daemon=True).start()


def holdings(pid):
    fds = os.listdir(f"/proc/{pid}/fd")
    children = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
                if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
                    children += 1
            except (OSError, ValueError):
                pass
    rss = next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("VmRSS:"))
    kinds = {}
    for fd in fds:
        try:
            target = "".join(c for c in os.readlink(f"/proc/{pid}/fd/{fd}") if not c.isdigit())
        except OSError:
            continue
        kinds[target] = kinds.get(target, 0) + 1
    return {"descriptors": len(fds), "kinds": kinds, "children": children, "threads": len(os.listdir(f"/proc/{pid}/task")), "rss_kib": rss}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/lookout"))
    parser.add_argument("--cycles", type=int, default=12, help="cycles of six reloads")
    parser.add_argument("--settle", type=float, default=10, help="seconds to wait before the last reading")
    parser.add_argument("--no-mqtt", action="store_true", help="without MQTT")
    parser.add_argument("--no-http", action="store_true", help="without the web server")
    parser.add_argument("--stderr", action="store_true", help="print what lookout said on standard error")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="lookout-soak-")
    mqtt_port, http_port = free_port(), free_port()
    with open(f"{folder}/mosquitto.conf", "w") as conf:
        conf.write(f"listener {mqtt_port} 127.0.0.1\nallow_anonymous true\n")
    broker = subprocess.Popen(["mosquitto", "-c", f"{folder}/mosquitto.conf"], stderr=subprocess.DEVNULL)
    for name in ("a", "b"):
        os.mkfifo(f"{folder}/{name}.fifo")
        feed(f"{folder}/{name}.fifo")
    types = "[qr, ean13, face, datamatrix]"

    def write(variant):
        fps = 2 if variant == 4 else 5
        text = (f"detection:\n  types: {types}\n"
                + ("" if args.no_mqtt else f"mqtt:\n  mqtt: mqtt://127.0.0.1:{mqtt_port}/soak\n")
                + ("" if args.no_http else f"http:\n  http: 127.0.0.1:{http_port}\n  preview-fps: {fps}\n")
                + "cameras:\n"
                f"  a:\n    input: {folder}/a.fifo\n"
                f"  b:\n    input: {folder}/b.fifo\n    types: {'[qr, face]' if variant == 3 else types}\n")
        if variant == 2:
            text += f"  c:\n    input: {SAMPLE}\n"
        with open(f"{folder}/lookout.yml", "w") as f:
            f.write(text)

    write(1)
    env = dict(os.environ, XDG_STATE_HOME=f"{folder}/state")
    errors = open(f"{folder}/stderr.log", "w+")
    process = subprocess.Popen([args.binary, "run", "--config", f"{folder}/lookout.yml"], env=env,
                               stdout=subprocess.DEVNULL, stderr=errors)
    time.sleep(5)
    before = holdings(process.pid)
    reloads = 0
    for _ in range(args.cycles):
        for variant in (2, 1, 3, 1, 4, 1):
            write(variant)
            process.send_signal(signal.SIGHUP)
            reloads += 1
            deadline = time.time() + 120
            while time.time() < deadline:
                errors.seek(0)
                if errors.read().count("reloaded ") >= reloads:
                    break
                time.sleep(0.05)
    time.sleep(args.settle)
    after = holdings(process.pid)
    process.send_signal(signal.SIGTERM)
    status = process.wait(timeout=60)
    broker.terminate()
    print(json.dumps({"reloads": reloads, "before": before, "after": after, "exit": status}))
    if args.stderr:
        errors.seek(0)
        sys.stderr.write(errors.read())


if __name__ == "__main__":
    sys.exit(main())
