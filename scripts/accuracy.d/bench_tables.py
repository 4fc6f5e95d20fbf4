"""scripts/accuracy's tables for the benchmark photographs (qr-bench/ and code-bench/ of the corpus,
scripts/corpus.d/make_bench.py): Lookout, ZBar and zxing-cpp 3.1.1 side by side.

A marked code is found when a report of its type has its centre (the mean of the reported
points) inside the code's marked corners and the code's exact bytes; one report a code counts
(another report of the same code is a duplicate, neither found nor false). A report whose centre
lies in no marked code, or whose bytes differ from the code's it lies in, is a false code; on a
code-free picture every report is.
"""
import base64
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(ROOT, ".cache", "accuracy-venv")
ZXING_VERSION = "3.1.1"
NAMES = {"lookout": "Lookout", "zbar": "ZBar", "zxing": f"zxing-cpp {ZXING_VERSION}"}
ZBAR_KINDS = {"qr", "ean13"}


def setup(readers):
    """ZBar's library (Debian's zbar-tools brings libzbar0) and a virtual environment with the
    pinned zxing-cpp wheel (over Debian's python3 and its PIL), installed when missing."""
    if "zbar" in readers:
        try:
            import ctypes
            ctypes.CDLL("libzbar.so.0")
        except OSError:
            sudo = [] if os.geteuid() == 0 else ["sudo"]
            print("accuracy: installing zbar-tools (libzbar0)", file=sys.stderr)
            subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
            subprocess.run(sudo + ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq",
                                   "--no-install-recommends", "zbar-tools"], check=True, stdout=subprocess.DEVNULL)
    python = os.path.join(VENV, "bin", "python")
    probe = [python, "-c", "import importlib.metadata as m, PIL; print(m.version('zxing-cpp'))"]
    have = subprocess.run(probe, capture_output=True, text=True).stdout.strip() if os.path.exists(python) else ""
    if "zxing" in readers and have != ZXING_VERSION:
        print(f"accuracy: installing zxing-cpp {ZXING_VERSION} into {os.path.relpath(VENV, ROOT)}", file=sys.stderr)
        if not os.path.exists(python):
            subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "-q", f"zxing-cpp=={ZXING_VERSION}"], check=True)
    if not os.path.exists(python):
        # ZBar alone: the reader needs PIL only, Debian's python3 has it (scripts/make-corpus installs it).
        return "/usr/bin/python3"
    return python


def run_reader(reader, files, types, args, python):
    """Runs one reader over the files; returns (reports per file, wall seconds, CPU seconds)."""
    if reader == "lookout":
        command = [args.lookout, "scan", "--types", ",".join(types), *args.scan_options, *files]
    else:
        command = [python, os.path.join(HERE, "read_codes.py"), reader, ",".join(types), *files]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"accuracy: {reader} failed ({result.returncode}): {result.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    found = {f: [] for f in files}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        if reader == "lookout":
            points = [[c["x"], c["y"]] for c in record.get("pixel_corners", [])]
            if not points:
                b = record["pixel_bounds"]
                points = [[b["x"], b["y"]], [b["x"] + b["width"], b["y"] + b["height"]]]
            record = {"source": record["source"], "type": record["kind"],
                      "raw_base64": base64.b64encode(lookout_bytes(record)).decode(), "points": points}
        found[record["source"]].append(record)
    return found, wall, cpu


def lookout_bytes(record):
    if "raw_base64" in record:
        return base64.b64decode(record["raw_base64"])
    return record["value"].encode("utf-8")


def homography(source, target):
    """PIL's PERSPECTIVE coefficients taking the source points to the target points."""
    import numpy as np  # here: scripts/accuracy's tables need no numpy
    rows, values = [], []
    for (x, y), (u, v) in zip(source, target):
        rows += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        values += [u, v]
    return tuple(np.linalg.solve(np.array(rows, float), np.array(values, float)))


def inside(point, polygon):
    """Whether the point lies inside the polygon (even-odd rule)."""
    x, y = point
    result = False
    for i in range(len(polygon)):
        (x1, y1), (x2, y2) = polygon[i], polygon[(i + 1) % len(polygon)]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            result = not result
    return result


def judge(entry, reports):
    """(indices of the marked codes found, false reports with why, duplicates)."""
    codes = entry["codes"]
    found, false, duplicates = set(), [], 0
    for report in reports:
        points = report["points"]
        centre = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
        hits = [i for i, code in enumerate(codes) if inside(centre, code["corners"])]
        if not hits:
            false.append((report, centre, "in no marked code"))
            continue

        def distance(i):
            corners = codes[i]["corners"]
            return (sum(c[0] for c in corners) / 4 - centre[0]) ** 2 + (sum(c[1] for c in corners) / 4 - centre[1]) ** 2

        i = min(hits, key=distance)
        if report["type"] != codes[i]["type"] or base64.b64decode(report["raw_base64"]) != base64.b64decode(codes[i]["raw_base64"]):
            false.append((report, centre, f"other bytes than code {i}"))
        elif i in found:
            duplicates += 1
        else:
            found.add(i)
    return found, false, duplicates


def tally(entries, reports, reader, corpus, listing):
    """Counts per entry category: pictures, codes, found, false, duplicates."""
    rows = {}
    for entry in entries:
        row = rows.setdefault(entry["category"], {"pictures": 0, "codes": 0, "found": 0, "false": 0, "duplicates": 0})
        found, false, duplicates = judge(entry, reports[os.path.join(corpus, entry["file"])])
        row["pictures"] += 1
        row["codes"] += len(entry["codes"])
        row["found"] += len(found)
        row["false"] += len(false)
        row["duplicates"] += duplicates
        if listing:
            for i, code in enumerate(entry["codes"]):
                if i not in found:
                    detail = f"v{code['version']} {code['ec']}, " if "version" in code else ""
                    print(f"  {reader}: missed {entry['file']} code {i} ({code['type']}, {detail}module {code['module']} px; "
                          f"{', '.join(entry['effects']) or 'no effect'})")
            for report, centre, why in false:
                text = base64.b64decode(report["raw_base64"])[:40]
                print(f"  {reader}: FALSE {entry['file']}: {report['type']} {text!r} at ({centre[0]:.0f}, {centre[1]:.0f}), {why}")
    return rows


def add(rows):
    total = {"pictures": 0, "codes": 0, "found": 0, "false": 0, "duplicates": 0}
    for row in rows.values():
        for key in total:
            total[key] += row[key]
    return total


def cells(row, reader, available=True):
    if not available:
        return ["n/a", "", ""]
    if row["codes"] == 0:
        return ["–", "", str(row["false"])]
    return [str(row["found"]), f"{100 * row['found'] / row['codes']:.1f}", str(row["false"])]


def table(title, order, results, readers, label_all=True, unavailable=()):
    """Markdown: one row per category (and `all`), three columns per reader, timings last."""
    lines = [title, "", "| | pictures | codes | " + " | ".join(f"{NAMES[r]} | % | false" for r in readers) + " |",
             "|---|---:|---:|" + "---:|---:|---:|" * len(readers)]
    first = results[readers[0]]["rows"]
    for category in order:
        if category not in first:
            continue
        row = first[category]
        line = [category, str(row["pictures"]), str(row["codes"])]
        for r in readers:
            line += cells(results[r]["rows"][category], r, (r, category) not in unavailable)
        lines.append("| " + " | ".join(line) + " |")
    if label_all:
        total = add(first)
        line = ["**all**", str(total["pictures"]), str(total["codes"])]
        for r in readers:
            t = add({k: v for k, v in results[r]["rows"].items() if (r, k) not in unavailable})
            t["codes"] = sum(row["codes"] for k, row in results[r]["rows"].items() if (r, k) not in unavailable)
            line += [f"**{t['found']}**", f"**{100 * t['found'] / max(1, t['codes']):.1f}**", f"**{t['false']}**"]
        lines.append("| " + " | ".join(line) + " |")
    line = ["seconds, wall / CPU", "", ""]
    for r in readers:
        line += [f"{results[r]['wall']:.0f} / {results[r]['cpu']:.0f}", "", ""]
    lines.append("| " + " | ".join(line) + " |")
    return "\n".join(lines)


CODE_GROUPS = [("ean13", ["ean13"]), ("kinds", ["pdf417", "aztec", "datamatrix"]),
               ("code_free", ["qr", "ean13", "pdf417", "aztec", "datamatrix"])]
CODE_ORDER = ["ean13", "pdf417", "aztec", "datamatrix", "code_free"]


def read_code_groups(entries, free, corpus, readers, args, python, what="pictures"):
    """code-bench's entries (files relative to corpus) read by each reader, a group of kinds at a
    time, each asked for its group's types (code-free pictures, with the extra `free` ones, for
    every type): (results as table() takes them, the (reader, kind) pairs it cannot read)."""
    results = {r: {"rows": {}, "wall": 0.0, "cpu": 0.0} for r in readers}
    unavailable = set()
    for name, types in CODE_GROUPS:
        group = [e for e in entries if (e["category"] in types if name != "code_free" else e["category"] == "code_free")]
        if name == "code_free":
            group = group + free
        if not group:
            continue
        files = [os.path.join(corpus, e["file"]) for e in group]
        for reader in readers:
            asked = [t for t in types if reader != "zbar" or t in ZBAR_KINDS]
            if reader == "zbar":
                unavailable |= {(reader, t) for t in types if t not in ZBAR_KINDS and name != "code_free"}
            if not asked:
                reports, wall, cpu = {f: [] for f in files}, 0.0, 0.0
            else:
                print(f"accuracy: {NAMES[reader]} over {len(files)} {what} ({name})", file=sys.stderr)
                reports, wall, cpu = run_reader(reader, files, asked, args, python)
            results[reader]["rows"].update(tally(group, reports, reader, corpus, args.list))
            results[reader]["wall"] += wall
            results[reader]["cpu"] += cpu
    return results, unavailable


def run(args):
    readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    unknown = [r for r in readers if r not in NAMES]
    if unknown:
        sys.exit(f"accuracy: unknown reader {', '.join(unknown)} (lookout, zbar, zxing)")
    qr_truth = os.path.join(args.corpus, "qr-bench", "truth.json")
    code_truth = os.path.join(args.corpus, "code-bench", "truth.json")
    if not os.path.exists(qr_truth):
        print(f"\n(no benchmark photographs in {args.corpus}: scripts/make-corpus makes them)")
        return {}
    python = setup(readers)
    figures = {}
    qr = json.load(open(qr_truth))
    entries = qr["pictures"]
    files = [os.path.join(args.corpus, e["file"]) for e in entries]
    results = {}
    for reader in readers:
        print(f"accuracy: {NAMES[reader]} over {len(files)} QR benchmark photographs", file=sys.stderr)
        reports, wall, cpu = run_reader(reader, files, ["qr"], args, python)
        results[reader] = {"rows": tally(entries, reports, reader, args.corpus, args.list), "wall": wall, "cpu": cpu}
    total_codes = sum(len(e["codes"]) for e in entries)
    print()
    print(table(f"QR benchmark photographs (qr-bench: {len(entries)} pictures, {total_codes} codes; "
                f"[{args.label}] Lookout's scan options: {' '.join(args.scan_options) or 'none'})", qr["categories"], results, readers))
    figures["qr"] = {r: {"rows": results[r]["rows"], "all": add(results[r]["rows"]), "wall_s": round(results[r]["wall"], 1),
                         "cpu_s": round(results[r]["cpu"], 1)} for r in readers}
    if not os.path.exists(code_truth):
        return figures
    code = json.load(open(code_truth))["pictures"]
    # The corpus's own code-free pictures join the benchmark's.
    main_truth = json.load(open(os.path.join(args.corpus, "truth.json")))
    free = [{"file": e["file"], "category": "code_free", "codes": [], "effects": []} for e in main_truth if e["set"] == "code_free"]
    results, unavailable = read_code_groups(code, free, args.corpus, readers, args, python)
    print()
    print(table(f"EAN-13, PDF417, Aztec and DataMatrix photographs, code-free pictures (code-bench, and the corpus's "
                f"{len(free)} code-free pictures; a code-free picture's every report is false; ZBar reads QR and EAN-13 only, "
                f"asked for those on code-free pictures)", CODE_ORDER, results, readers, label_all=False, unavailable=unavailable))
    figures["codes"] = {r: {"rows": results[r]["rows"], "wall_s": round(results[r]["wall"], 1), "cpu_s": round(results[r]["cpu"], 1)}
                        for r in readers}
    return figures
