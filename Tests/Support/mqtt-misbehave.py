#!/usr/bin/env python3
"""A fake MQTT 3.1.1 broker on 127.0.0.1 that misbehaves in one way, for the tests of what Lookout
does with a broker that is not right. Prints "listening PORT" once it listens, then one line per
connection accepted ("connection N") and per packet it read ("N PUBLISH", ...; a CONNECT as
"N CONNECT CLIENT-ID SECONDS", SECONDS the monotonic clock when it came), flushed at once, so a
test can count the connections Lookout made and see when each client came back.

usage: mqtt-misbehave.py MODE [PORT]   (PORT 0 or none: any free port)

MODE:
  silent         accepts TCP and never says anything
  close          closes each connection as soon as it is accepted
  connack-close  accepts the CONNECT (CONNACK 0), then closes
  bad-connack    answers the CONNECT with a malformed CONNACK (remaining length 1)
  bad-puback     accepts the CONNECT, answers each QoS 1 PUBLISH with a malformed PUBACK
  no-puback      accepts the CONNECT and SUBSCRIBE, never acknowledges a PUBLISH
"""
import socket
import sys
import threading
import time

MODES = {"silent", "close", "connack-close", "bad-connack", "bad-puback", "no-puback"}
mode = sys.argv[1] if len(sys.argv) > 1 else ""
if mode not in MODES:
    sys.exit(__doc__)
port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
lock = threading.Lock()
NAMES = {1: "CONNECT", 3: "PUBLISH", 8: "SUBSCRIBE", 12: "PINGREQ", 14: "DISCONNECT"}


def say(line):
    with lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def read_exactly(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def packets(conn):
    """(type, flags, body) for each packet until the client closes."""
    while True:
        first = read_exactly(conn, 1)
        if first is None:
            return
        length, shift = 0, 0
        while True:
            byte = read_exactly(conn, 1)
            if byte is None:
                return
            length += (byte[0] & 0x7F) << shift
            shift += 7
            if byte[0] & 0x80 == 0:
                break
        body = read_exactly(conn, length) if length else b""
        if body is None:
            return
        yield first[0] >> 4, first[0] & 0x0F, body


def serve(conn, number):
    try:
        if mode == "close":
            return
        for kind, flags, body in packets(conn):
            if kind == 1:  # protocol name, level, flags, keep-alive, then the client ID
                name_length = int.from_bytes(body[:2], "big")
                offset = 2 + name_length + 4
                client = body[offset + 2:offset + 2 + int.from_bytes(body[offset:offset + 2], "big")]
                say(f"{number} CONNECT {client.decode(errors='replace')} {time.monotonic():.3f}")
            else:
                say(f"{number} {NAMES.get(kind, kind)}")
            if mode == "silent":
                continue
            if kind == 1:  # CONNECT
                if mode == "bad-connack":
                    conn.sendall(bytes([0x20, 0x01, 0x00]))
                    continue
                conn.sendall(bytes([0x20, 0x02, 0x00, 0x00]))
                if mode == "connack-close":
                    return
            elif kind == 8:  # SUBSCRIBE: granted QoS 0 for each topic
                topics, offset = 0, 2
                while offset < len(body):
                    offset += 2 + int.from_bytes(body[offset:offset + 2], "big") + 1
                    topics += 1
                conn.sendall(bytes([0x90, 2 + topics]) + body[:2] + bytes(topics))
            elif kind == 3 and (flags >> 1) & 3 == 1:  # PUBLISH at QoS 1
                topic_length = int.from_bytes(body[:2], "big")
                message_id = body[2 + topic_length:4 + topic_length]
                if mode == "bad-puback":
                    conn.sendall(bytes([0x40, 0x01]) + message_id[:1])
            elif kind == 12:  # PINGREQ
                conn.sendall(bytes([0xD0, 0x00]))
            elif kind == 14:  # DISCONNECT
                return
    except OSError:
        pass
    finally:
        conn.close()


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(64)
say(f"listening {listener.getsockname()[1]}")
count = 0
while True:
    connection, _ = listener.accept()
    count += 1
    say(f"connection {count}")
    threading.Thread(target=serve, args=(connection, count), daemon=True).start()
