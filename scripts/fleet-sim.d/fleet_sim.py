"""A fleet of simulated Lookout nodes on a NATS cluster (see scripts/fleet-sim and docs/fleet.md).

Each simulated camera publishes what a real Lookout camera connection publishes, replayed from a
recording of the real binary on the bundled clips (record): availability with a last will, retained
state, Home Assistant discovery configs, and event lines at the rate the clip made them, with a
persistent session (clean session off, client ID `<node>-<camera>`) and a QoS 0 subscription to
homeassistant/status. Each simulated node has its own connection for `<prefix>/available`.
"""
import argparse
import json
import os
import subprocess
import sys

from fleet_cluster import Cluster
from fleet_nodes import load_scripts
from fleet_record import record
from fleet_run import run_fleet


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
