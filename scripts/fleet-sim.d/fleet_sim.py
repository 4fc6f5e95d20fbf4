"""A fleet of simulated Lookout nodes on a NATS cluster (see scripts/fleet-sim and docs/fleet.md).

Each simulated camera publishes what a real Lookout camera connection publishes, replayed from a
recording of the real binary on the bundled clips (record): availability with a last will, retained
state, Home Assistant discovery configs, and event lines at the rate the clip made them, with a
persistent session (clean session off, client ID `<node>-<camera>`) and a QoS 0 subscription to
homeassistant/status. Each simulated node has its own connection for `<prefix>/available`.
"""
import argparse
import base64
import heapq
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import paho.mqtt.client as mqtt

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


# --- Recording the real binary ------------------------------------------------------------------

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
    wait_for(lambda: _accepts(port), 30, "mosquitto did not start")
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


def _accepts(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


class CameraScript:
    """One recorded camera's traffic, split the way its connection sends it."""

    def __init__(self, name, messages, period):
        own = f"{RECORD_PREFIX}/{name}/"
        node_id = f"{RECORD_PREFIX}_{name}"
        mine = [m for m in messages if m["topic"].startswith(own) or f"/{node_id}/" in m["topic"]]
        self.name = name
        self.discovery = [m for m in mine if m["topic"].startswith("homeassistant/") and m["payload"]]
        online = [m["t"] for m in mine if m["topic"] == own + "available" and base64.b64decode(m["payload"]) == b"online"]
        self.begin, self.end = online[0], online[0] + period
        # Retained state first sent (presence OFF...), then the run: events, scans and state
        # changes, at their offsets from the camera going online; replayed in a loop of the clip's length.
        running = [m for m in mine if not m["topic"].startswith("homeassistant/") and not m["topic"].endswith("/available")]
        self.initial = [m for m in running if m["retain"] and m["t"] <= self.begin + 0.05]
        self.loop = [dict(m, t=m["t"] - self.begin) for m in running if m not in self.initial and m["t"] <= self.end]
        self.period = period

    def events_per_period(self):
        return sum(1 for m in self.loop if m["topic"].endswith("/events"))


def load_scripts():
    if not os.path.exists(TRAFFIC):
        raise SystemExit("fleet-sim: no recording; run scripts/fleet-sim record first")
    with open(TRAFFIC) as f:
        traffic = json.load(f)
    return traffic, [CameraScript(name, traffic["messages"], traffic["periods"][name]) for name in traffic["cameras"]]


# --- The cluster --------------------------------------------------------------------------------

class Cluster:
    """Three nats-server processes on loopback: routes, JetStream, MQTT (the configuration
    docs/fleet.md shows, with loopback ports)."""

    def __init__(self, size=3, replicas=3):
        self.folder = tempfile.mkdtemp(prefix="fleet-sim-nats-")
        routes = [free_port() for _ in range(size)]
        self.mqtt = [free_port() for _ in range(size)]
        self.monitor = [free_port() for _ in range(size)]
        self.processes = []
        for i in range(size):
            store = os.path.join(self.folder, f"n{i + 1}")
            os.makedirs(store)
            config = os.path.join(self.folder, f"n{i + 1}.conf")
            with open(config, "w") as f:
                f.write(f"""server_name: fleet-{i + 1}
listen: 127.0.0.1:-1
http: 127.0.0.1:{self.monitor[i]}
jetstream {{ store_dir: "{store}" }}
cluster {{ name: fleet, listen: 127.0.0.1:{routes[i]}, routes: [{", ".join(f"nats-route://127.0.0.1:{p}" for p in routes)}] }}
mqtt {{ listen: 127.0.0.1:{self.mqtt[i]}, stream_replicas: {replicas} }}
""")
            self.processes.append(subprocess.Popen(["/usr/sbin/nats-server", "-c", config],
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for i in range(size):
            wait_for(lambda: (monitor(self.monitor[i], "jsz") or {}).get("meta_cluster", {}).get("leader"), 120,
                     f"node {i + 1} has no JetStream meta leader")
            wait_for(lambda: mqtt_probe(self.mqtt[i]), 120, f"node {i + 1} does not accept MQTT clients")

    @property
    def brokers(self):
        return [("127.0.0.1", port) for port in self.mqtt]

    def stop(self):
        for process in self.processes:
            process.send_signal(signal.SIGTERM)
        for process in self.processes:
            process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


def monitor(address, endpoint):
    """A monitoring endpoint's JSON; address is a port on this machine or (host, port)."""
    host, port = address if isinstance(address, tuple) else ("127.0.0.1", address)
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/{endpoint}", timeout=10) as answer:
            return json.load(answer)
    except OSError:
        return None


def mqtt_probe(port):
    """A QoS 1 publish acknowledged: the node's MQTT streams answer (the first client on a node
    waits for them, and a node refuses clients until they do)."""
    acked = threading.Event()
    client = mqtt.Client(client_id=f"fleet-sim-probe-{port}", clean_session=True)
    client.on_publish = lambda *a: acked.set()
    try:
        client.connect("127.0.0.1", port, keepalive=10)
    except OSError:
        return False
    client.loop_start()
    client.publish("fleet-sim/probe", b"probe", qos=1)
    ok = acked.wait(10)
    client.loop_stop()
    client.disconnect()
    return ok


# --- The simulated fleet ------------------------------------------------------------------------

class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.sent = self.bytes = self.acked = 0

    def add(self, payload):
        with self.lock:
            self.sent += 1
            self.bytes += len(payload)

    def ack(self):
        with self.lock:
            self.acked += 1


def starting_broker(client_id, count):
    """The broker Lookout's connection with `client_id` tries first (FNV-1a of the ID)."""
    value = 0xcbf29ce484222325
    for byte in client_id.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value % count


class Connection:
    """One MQTT client as Lookout makes it: persistent session, retained last will "offline" on
    its availability topic, keep-alive 30 s; the first broker the one its client ID picks
    (FNV-1a, as MQTTConfiguration.startingBroker), so that the fleet spreads over the cluster."""

    def __init__(self, client_id, availability, brokers, counter, subscribe=None, on_message=None, subscribe_qos=1):
        self.client = mqtt.Client(client_id=client_id, clean_session=False, protocol=mqtt.MQTTv311)
        self.client.will_set(availability, b"offline", qos=1, retain=True)
        self.client.max_inflight_messages_set(64)
        self.client.max_queued_messages_set(0)
        self.counter = counter
        self.connected = threading.Event()
        self.brokers = brokers
        self.client.on_publish = lambda *a: counter.ack()

        def on_connect(client, userdata, flags, rc):
            if rc == 0:
                if subscribe:
                    client.subscribe(subscribe, qos=subscribe_qos)
                self.connected.set()
        self.client.on_connect = on_connect
        if on_message:
            self.client.on_message = on_message
        host, port = brokers[starting_broker(client_id, len(brokers))]
        self.client.connect_async(host, port, keepalive=30)
        self.client.loop_start()

    def publish(self, topic, payload, retain):
        self.counter.add(payload)
        self.client.publish(topic, payload, qos=1, retain=retain)

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


class Camera:
    def __init__(self, node, name, script, brokers, counters, status_qos=0):
        self.node, self.name, self.script = node, name, script
        self.prefix = f"{node.prefix}"
        self.sequence = 0
        self.restarts = 0
        self.counters = counters
        self.connection = Connection(f"{node.client_id}-{name}", f"{self.prefix}/{name}/available", brokers,
                                     counters["all"], subscribe="homeassistant/status", on_message=self.on_status,
                                     subscribe_qos=status_qos)

    def rename(self, text):
        """The recording's names made this camera's: prefix, node client ID, camera name."""
        return (text.replace(f"{RECORD_PREFIX}/{self.script.name}", f"{self.prefix}/{self.name}")
                .replace(f"{RECORD_PREFIX}_{self.script.name}", f"{self.prefix.replace('/', '_')}_{self.name}")
                .replace(self.script.name, self.name).replace(RECORD_PREFIX, self.prefix)
                .replace(RECORD_CLIENT, self.node.client_id))

    def send(self, message, counter=None):
        topic = self.rename(message["topic"])
        payload = base64.b64decode(message["payload"])
        if topic.endswith("/events"):
            payload = self.with_id(payload)
        elif payload and (message["topic"].startswith("homeassistant/") or payload[:1] == b"{"):
            payload = self.rename(payload.decode()).encode()
        if counter:
            counter.add(payload)
        self.connection.publish(topic, payload, message["retain"])

    def with_id(self, payload):
        """The event line with `"id":"<node>/<camera>/<sequence>"` as its first key, as Lookout
        sends it (spliced in; the rest of the line as recorded, names made this camera's)."""
        self.sequence += 1
        event = json.loads(self.rename(payload.decode()))
        event.pop("id", None)
        return json.dumps({"id": f"{self.node.client_id}/{self.name}/{self.sequence}", **event},
                          separators=(",", ":"), ensure_ascii=False).encode()

    def start(self):
        """What a camera's connection sends on connecting: availability, discovery, state."""
        self.connection.publish(f"{self.prefix}/{self.name}/available", b"online", True)
        self.send_discovery(self.counters["discovery_start"])
        for message in self.script.initial:
            self.send(message)

    def send_discovery(self, counter):
        for message in self.script.discovery:
            self.send(message, counter)

    def on_status(self, client, userdata, message):
        # Home Assistant is back: every camera sends its discovery configs again (as Lookout does).
        if message.payload == b"online" and not message.retain:
            self.restarts += 1
            self.send_discovery(self.counters["discovery_restart"])


class Node:
    def __init__(self, index, prefix_root, brokers, counters):
        self.client_id = f"fleet-node-{index:05d}"
        self.prefix = f"{prefix_root}/node{index:05d}"
        # Every node lists the same brokers; each connection starts where its client ID picks.
        self.brokers = brokers
        self.connection = Connection(self.client_id, f"{self.prefix}/available", self.brokers, counters["all"])
        self.cameras = []


def run_fleet(cameras, per_node, seconds, brokers, monitors, scripts, status_qos=0):
    counters = {name: Counter() for name in ("all", "discovery_start", "discovery_restart", "steady")}
    nodes = []
    for index in range((cameras + per_node - 1) // per_node):
        node = Node(index, "fleet", brokers, counters)
        for c in range(min(per_node, cameras - index * per_node)):
            script = scripts[(index * per_node + c) % len(scripts)]
            node.cameras.append(Camera(node, f"cam{c + 1}", script, node.brokers, counters, status_qos))
        nodes.append(node)
    connections = [n.connection for n in nodes] + [c.connection for n in nodes for c in n.cameras]
    wait_for(lambda: all(c.connected.is_set() for c in connections), 300, "the fleet did not connect")
    before = broker_figures(monitors)
    for node in nodes:
        node.connection.publish(f"{node.prefix}/available", b"online", True)
        for camera in node.cameras:
            camera.start()
    wait_for(lambda: counters["all"].acked >= counters["all"].sent, 300, "the start was not acknowledged")
    print(f"fleet-sim: {cameras} cameras on {len(nodes)} nodes connected and started", file=sys.stderr)

    # Steady state: every camera replays its clip's events in a loop, from a random point of it.
    schedule, begin = [], time.monotonic()
    for i, camera in enumerate(c for n in nodes for c in n.cameras):
        offset = (i * 0.618) % 1 * camera.script.period
        for message in camera.script.loop:
            t = message["t"] - offset
            while t < 0:
                t += camera.script.period
            heapq.heappush(schedule, (begin + t, i, id(message), camera, message))
    first = broker_figures(monitors)
    end = begin + seconds
    lag = 0.0
    while schedule and schedule[0][0] < end:
        at, i, key, camera, message = heapq.heappop(schedule)
        delay = at - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        lag = max(lag, -delay)
        camera.send(message, counters["steady"])
        heapq.heappush(schedule, (at + camera.script.period, i, key, camera, message))
    # The window is whole: rates are over its length, not up to its last message.
    time.sleep(max(0.0, end - time.monotonic()))
    wait_for(lambda: counters["all"].acked >= counters["all"].sent, 300, "the run was not acknowledged")
    elapsed = time.monotonic() - begin
    steady = broker_figures(monitors)

    # Home Assistant restarts: its birth message on homeassistant/status.
    restart_sent = counters["all"].sent
    publisher = mqtt.Client(client_id="fleet-sim-homeassistant", clean_session=True)
    publisher.connect(*brokers[0])
    publisher.loop_start()
    publisher.publish("homeassistant/status", b"online", qos=1).wait_for_publish()
    expected = sum(len(c.script.discovery) for n in nodes for c in n.cameras)
    try:
        wait_for(lambda: counters["discovery_restart"].sent >= expected and counters["all"].acked >= counters["all"].sent,
                 120, "the discovery after a Home Assistant restart was not acknowledged")
    except SystemExit as failure:
        told = sum(1 for n in nodes for c in n.cameras if c.restarts)
        raise SystemExit(f"{failure}: {told} of {cameras} cameras got homeassistant/status; "
                         f"{counters['discovery_restart'].sent} of {expected} configs sent; "
                         f"{counters['all'].acked} of {counters['all'].sent} messages acknowledged")
    publisher.loop_stop()
    publisher.disconnect()
    after = broker_figures(monitors)
    for connection in connections:
        connection.close()
    return {
        "cameras": cameras, "nodes": len(nodes), "connections": len(connections), "seconds": round(elapsed, 1),
        # How late the simulator sent a message at worst: the rates hold only while this is small.
        "max_lag_s": round(lag, 3),
        "published_per_s": round(counters["steady"].sent / elapsed, 1),
        "published_bytes_per_s": round(counters["steady"].bytes / elapsed),
        "events_per_s": round(sum(c.sequence for n in nodes for c in n.cameras) / elapsed, 2),
        "broker_in_msgs_per_s": round((steady["in_msgs"] - first["in_msgs"]) / elapsed, 1),
        "broker_out_msgs_per_s": round((steady["out_msgs"] - first["out_msgs"]) / elapsed, 1),
        "retained_topics": after["retained"], "sessions": after["sessions"], "consumers": after["consumers"],
        "discovery_start_messages": counters["discovery_start"].sent, "discovery_start_bytes": counters["discovery_start"].bytes,
        "discovery_restart_messages": counters["discovery_restart"].sent,
        "discovery_restart_bytes": counters["discovery_restart"].bytes,
        "restart_messages_total": counters["all"].sent - restart_sent,
        "broker_memory_before_mb": [round(m / 2**20, 1) for m in before["mem"]],
        "broker_memory_mb": [round(m / 2**20, 1) for m in after["mem"]],
        "jetstream_store_mb": round(after["store"] / 2**20, 2),
        "broker_cpu_percent": after["cpu"],
    }


def broker_figures(monitors):
    """From each node's monitoring endpoint: resident memory, CPU, messages in and out (/varz);
    the MQTT streams' retained messages and sessions and the consumers (/jsz, one node's view)."""
    figures = {"mem": [], "cpu": [], "in_msgs": 0, "out_msgs": 0, "retained": 0, "sessions": 0, "consumers": 0, "store": 0}
    for address in monitors:
        varz = monitor(address, "varz") or {}
        figures["mem"].append(varz.get("mem", 0))
        figures["cpu"].append(varz.get("cpu", 0))
        figures["in_msgs"] += varz.get("in_msgs", 0)
        figures["out_msgs"] += varz.get("out_msgs", 0)
    jsz = (monitor(monitors[0], "jsz?accounts=true&streams=true") or {}) if monitors else {}
    figures["store"] = jsz.get("storage", 0)
    for account in jsz.get("account_details", []):
        for stream in account.get("stream_detail", []):
            state = stream.get("state", {})
            if stream["name"] == "$MQTT_rmsgs":
                figures["retained"] = state.get("messages", 0)
            if stream["name"] == "$MQTT_sess":
                figures["sessions"] = state.get("messages", 0)
            figures["consumers"] += state.get("consumer_count", 0)
    return figures


def run(args):
    traffic, scripts = load_scripts()
    cluster = None
    if args.brokers:
        brokers = [tuple(b.split("//")[-1].rsplit(":", 1)) for b in args.brokers.split(",")]
        brokers = [(h, int(p)) for h, p in brokers]
        # Each broker's monitoring port, on the broker's host.
        monitors = [(host, int(p)) for (host, _), p in zip(brokers, args.monitors.split(","))] if args.monitors else []
    else:
        cluster = Cluster()
        brokers, monitors = cluster.brokers, cluster.monitor
    try:
        result = run_fleet(args.cameras, args.cameras_per_node, args.seconds, brokers, monitors, scripts, args.ha_status_qos)
    finally:
        if cluster:
            cluster.stop()
    print(json.dumps(result))
    return result


def report(args):
    """10 and 100 cameras, each on a fresh cluster, and 10,000 extrapolated linearly from them."""
    traffic, scripts = load_scripts()
    results = []
    for cameras in (10, 100):
        cluster = Cluster()
        try:
            results.append(run_fleet(cameras, args.cameras_per_node, args.seconds, cluster.brokers, cluster.monitor, scripts,
                                     args.ha_status_qos))
        finally:
            cluster.stop()
        print(json.dumps(results[-1]), file=sys.stderr)
    small, large = results
    scale = (10000 - large["cameras"]) / (large["cameras"] - small["cameras"])

    def extrapolate(key):
        return large[key] + (large[key] - small[key]) * scale

    memory = [max(r["broker_memory_mb"]) for r in results]
    per_camera_mb = (memory[1] - memory[0]) / (large["cameras"] - small["cameras"])
    rows = [("cameras (nodes of %d)" % args.cameras_per_node, "cameras", "{:,.0f}"),
            ("MQTT connections", "connections", "{:,.0f}"),
            ("events per second", "events_per_s", "{:,.1f}"),
            ("messages published per second", "published_per_s", "{:,.0f}"),
            ("bytes published per second", "published_bytes_per_s", "{:,.0f}"),
            ("messages in, all brokers, per second", "broker_in_msgs_per_s", "{:,.0f}"),
            ("retained topics", "retained_topics", "{:,.0f}"),
            ("persistent sessions", "sessions", "{:,.0f}"),
            ("JetStream consumers (QoS 1 subscriptions)", "consumers", "{:,.0f}"),
            ("discovery at start: messages", "discovery_start_messages", "{:,.0f}"),
            ("discovery at start: bytes", "discovery_start_bytes", "{:,.0f}"),
            ("discovery on a Home Assistant restart: messages", "discovery_restart_messages", "{:,.0f}"),
            ("discovery on a Home Assistant restart: bytes", "discovery_restart_bytes", "{:,.0f}")]
    lines = ["| | 10 cameras (measured) | 100 cameras (measured) | 10,000 cameras (extrapolated) |",
             "| --- | ---: | ---: | ---: |"]
    for label, key, form in rows:
        lines.append(f"| {label} | {form.format(small[key])} | {form.format(large[key])} | {form.format(extrapolate(key))} |")
    lines.append(f"| broker memory, largest node (MB) | {memory[0]:,.0f} | {memory[1]:,.0f} | "
                 f"{memory[1] + per_camera_mb * (10000 - large['cameras']):,.0f} |")
    table = "\n".join(lines)
    print(table)
    print(f"\nRecording: {traffic['command']} ({traffic['lookout']}); {args.seconds} s of steady state per fleet; "
          f"homeassistant/status subscribed at QoS {args.ha_status_qos}; nats-server {nats_version()} on {os.cpu_count()} cores.")
    return table


def nats_version():
    return subprocess.run(["/usr/sbin/nats-server", "--version"], stdout=subprocess.PIPE, text=True).stdout.split()[-1]


def main():
    parser = argparse.ArgumentParser(prog="scripts/fleet-sim", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("record", help="record the real binary's MQTT traffic on the bundled clips")
    one = commands.add_parser("run", help="one fleet")
    one.add_argument("--cameras", type=int, default=10)
    one.add_argument("--cameras-per-node", type=int, default=5)
    one.add_argument("--seconds", type=float, default=60)
    one.add_argument("--brokers", help="mqtt://host:port,... of a cluster of your own (else one is started here)")
    one.add_argument("--monitors", help="the brokers' monitoring ports, comma-separated, for /varz and /jsz")
    every = commands.add_parser("report", help="10 and 100 cameras, and the table")
    every.add_argument("seconds", type=float, nargs="?", default=60)
    every.add_argument("--cameras-per-node", type=int, default=5)
    for command in (one, every):
        # Lookout subscribes at QoS 0: a NATS session's QoS 1 subscription would be a JetStream consumer.
        command.add_argument("--ha-status-qos", type=int, choices=(0, 1), default=0,
                             help="the QoS of each camera's homeassistant/status subscription (Lookout: 0)")
    args = parser.parse_args()
    {"record": record, "run": run, "report": report}[args.command](args)


if __name__ == "__main__":
    main()
