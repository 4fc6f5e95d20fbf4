"""The NATS cluster the fleet runs on (three nats-server processes on loopback) and what its
monitoring endpoints say."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import urllib.request

import paho.mqtt.client as mqtt

from fleet_common import free_port, wait_for


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

