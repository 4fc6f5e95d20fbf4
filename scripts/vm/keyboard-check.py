#!/usr/bin/env python3
"""Checks what Lookout's virtual keyboards typed (scripts/vm/keyboard-tests): for each camera, the
text read back (keyboard-reader.py) must be exactly, in order, each code event of that camera in
Lookout's output that the layout types, as the options say (AIM identifier, GS substitute, suffix),
and nothing else; the codes the layout cannot type must be refused (the stats line's count), every
press released. Prints one line saying what was typed and read; exits 1 on any difference.
Usage: keyboard-check.py READ.json LINES.jsonl CODES.txt REFUSED SUFFIX AIM GS CAMERA=DEVICE...
REFUSED: the indexes in CODES.txt (0-based, comma-separated, or -) the layout cannot type."""
import json, sys

read_path, lines_path, codes_path, refused_text, suffix, aim, gs = sys.argv[1:8]
cameras = dict(argument.split("=", 1) for argument in sys.argv[8:])
read = json.load(open(read_path))
lines = [json.loads(line) for line in open(lines_path) if line.startswith("{")]
codes = [line.rstrip("\n").replace("\\x1d", "\x1d") for line in open(codes_path)]
refused = {codes[int(index)] for index in refused_text.split(",") if index != "-"}
ending = {"enter": "\n", "tab": "\t", "none": ""}[suffix]
problems, said = [], []
for camera, device in cameras.items():
    events = [line for line in lines if line.get("kind") == "code" and line.get("camera") == camera]
    values = [event["value"] for event in events]
    if sorted(values) != sorted(codes) or len(values) != len(codes):
        problems.append(f"{camera}: code events {values!r}, the clip holds {codes!r}")
    expected = "".join((event["aim_id"] if aim == "yes" else "") + event["value"].replace("\x1d", gs) + ending
                       for event in events if event["value"] not in refused)
    got = read.get(device, {})
    stats = next((line for line in lines if line.get("kind") == "stats" and line.get("camera") == camera), {}).get("keyboard", {})
    if got.get("syn_dropped"):
        problems.append(f"{camera}: the reader fell behind: evdev dropped events {got['syn_dropped']} times (SYN_DROPPED)")
    if got.get("text") != expected:
        problems.append(f"{camera}: typed {got.get('text')!r}, expected {expected!r}")
    if got.get("presses") != got.get("releases") or got.get("down"):
        problems.append(f"{camera}: {got.get('presses')} presses, {got.get('releases')} releases, keys left down {got.get('down')}")
    typed = len(values) - len(refused & set(values))
    if stats.get("typed") != typed or stats.get("refused") != len(refused & set(values)) or stats.get("keys") != got.get("presses", 0) * 2:
        problems.append(f"{camera}: stats {stats}, expected {typed} typed, {len(refused)} refused, {got.get('presses')} presses")
    said.append(f"{camera}: {typed} codes, {got.get('presses')} keys read back exactly, {stats.get('refused')} refused")
if problems:
    print("; ".join(problems))
    sys.exit(1)
first = next(iter(cameras.values()))
print("; ".join(said) + f"; typed: {read[first]['text']!r}")
