"""Recording the real binary's MQTT traffic on the bundled clips (scripts/fleet-sim record)."""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

import paho.mqtt.client as mqtt

from fleet_common import RECORD_CLIENT, RECORD_CLIPS, RECORD_PREFIX, ROOT, TRAFFIC, accepts, free_port, wait_for


def record(args):
    """Runs the real lookout on the bundled clips, as cameras do (--realtime, 10 fps, --events
    changes, --ha-discovery), against a private mosquitto, and keeps every message it published
    with its time, retain flag and QoS."""
    lookout = os.environ.get("LOOKOUT") or os.path.join(ROOT, ".build/debug/lookout")
    folder = tempfile.mkdtemp(prefix="fleet-sim-record-")
    port = free_port()
    with open(os.path.join(folder, "mosquitto.conf"), "w") as f:
        f.write(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    broker = subprocess.Popen(["/usr/sbin/mosquitto", "-c", os.path.join(folder, "mosquitto.conf")],
                              stderr=subprocess.DEVNULL)
    messages, lock = [], threading.Lock()
    start = [None]

    def on_message(client, userdata, message):
        with lock:
            if start[0] is None:
                start[0] = time.monotonic()
            messages.append({"t": round(time.monotonic() - start[0], 4), "topic": message.topic,
                             "retain": bool(message.retain), "qos": message.qos,
                             "payload": base64.b64encode(message.payload).decode()})

    subscribed = threading.Event()
    recorder = mqtt.Client(client_id="fleet-sim-recorder", clean_session=True)
    recorder.on_message = on_message
    recorder.on_subscribe = lambda *a: subscribed.set()
    recorder.on_connect = lambda client, *a: client.subscribe("#", qos=1)
    wait_for(lambda: accepts(port), 30, "mosquitto did not start")
    recorder.connect("127.0.0.1", port)
    recorder.loop_start()
    wait_for(subscribed.is_set, 30, "the recorder did not subscribe")
    command = [lookout, "run", "--realtime", "--fps", "10", "--events", "changes", "--ha-discovery", "--stats",
               "--mqtt", f"mqtt://127.0.0.1:{port}/{RECORD_PREFIX}", "--mqtt-client-id", RECORD_CLIENT]
    for camera, clip in RECORD_CLIPS.items():
        command += ["--input", f"{camera}={os.path.join(ROOT, 'Tests/Fixtures', clip)}"]
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        raise SystemExit(f"fleet-sim: lookout failed ({run.returncode}): {run.stderr}")
    # The node's own "offline" is the last message it publishes.
    wait_for(lambda: any(m["topic"] == f"{RECORD_PREFIX}/available" and base64.b64decode(m["payload"]) == b"offline"
                         for m in messages), 30, "lookout's offline never arrived")
    recorder.loop_stop()
    recorder.disconnect()
    # A live subscriber is sent every message with the retain flag off (MQTT 3.1.1, 3.3.1.3): the
    # retained topics are those a subscriber arriving afterwards is sent.
    retained, done = set(), threading.Event()
    late = mqtt.Client(client_id="fleet-sim-late", clean_session=True)
    late.on_message = lambda c, u, m: retained.add(m.topic) if m.retain else done.set()
    late.on_connect = lambda client, *a: (client.subscribe("#", qos=1), client.publish("fleet-sim/probe", b"probe", qos=1))
    late.connect("127.0.0.1", port)
    late.loop_start()
    wait_for(done.is_set, 30, "the probe never came back")
    late.loop_stop()
    late.disconnect()
    for message in messages:
        message["retain"] = message["topic"] in retained
    # Each clip's length, from the frames it gave at 10 fps: the period a simulated camera repeats.
    periods = {line["camera"]: line["frames_read"] / 10 for line in map(json.loads, run.stdout.splitlines())
               if line.get("kind") == "stats"}
    broker.terminate()
    broker.wait()
    shutil.rmtree(folder, ignore_errors=True)
    version = subprocess.run([lookout, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    with open(TRAFFIC, "w") as f:
        json.dump({"command": " ".join(["lookout"] + command[1:]).replace(ROOT + "/", ""), "lookout": version,
                   "prefix": RECORD_PREFIX, "client_id": RECORD_CLIENT, "cameras": list(RECORD_CLIPS),
                   "periods": periods, "messages": messages}, f, indent=0)
    print(f"fleet-sim: {len(messages)} messages recorded into {os.path.relpath(TRAFFIC, ROOT)}")

