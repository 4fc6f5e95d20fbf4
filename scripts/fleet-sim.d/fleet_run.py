"""One fleet run: nodes connected and started, the recorded traffic replayed for a while, then a
Home Assistant restart; the figures the brokers and the simulator saw."""
import heapq
import sys
import time

import paho.mqtt.client as mqtt

from fleet_cluster import broker_figures
from fleet_common import wait_for
from fleet_nodes import Camera, Counter, Node


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

