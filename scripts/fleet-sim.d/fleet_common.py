"""What every part of the fleet simulator shares: where things are, the recording's names, ports
and waiting (see fleet_sim.py)."""
import os
import socket
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TRAFFIC = os.path.join(HERE, "lookout-traffic.json")
# Names the recording run uses, replaced by each simulated node's and camera's own.
RECORD_PREFIX = "fleetsimprefix"
RECORD_CLIENT = "fleetsimnode"
RECORD_CLIPS = {"fleetsimcodes": "events-codes.mjpeg", "fleetsimpresence": "events-presence.mjpeg",
                "fleetsimfaces": "events-faces.mjpeg"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(condition, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise SystemExit(f"fleet-sim: {what} within {timeout} s")


def accepts(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False
