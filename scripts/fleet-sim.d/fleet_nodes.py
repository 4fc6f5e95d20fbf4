"""The simulated nodes and cameras: each camera's recorded script, and MQTT connections made as
Lookout makes them."""
import base64
import json
import os
import threading

import paho.mqtt.client as mqtt

from fleet_common import RECORD_CLIENT, RECORD_PREFIX, TRAFFIC


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

