#!/usr/bin/python3
"""The code-bench photographs turned negative (light codes on dark) and mirrored (a picture taken
through glass or by a camera that mirrors), read by Lookout, ZBar and zxing-cpp 3.1.1 side by side
as scripts/accuracy reads the originals: does each reader still read what it reads in the
originals, and does the negative of a code-free picture stay code-free?

Usage: scripts/accuracy.d/variants.py [--corpus DIR] [--lookout BIN] [--readers R,...] [--list]
       (after scripts/make-corpus and a release build; run with .cache/accuracy-venv/bin/python,
       which scripts/accuracy makes, or Debian's python3: the zxing-cpp wheel is installed as
       scripts/accuracy installs it). The copies are grey JPEGs (quality 92) in DIR/variants.
"""
import argparse
import copy
import json
import os
import sys

from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_tables  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))


def mirrored(entry):
    """The entry's truth with every corner mirrored left to right (the corner order kept)."""
    entry = copy.deepcopy(entry)
    for code in entry["codes"]:
        code["corners"] = [[entry["width"] - x, y] for x, y in code["corners"]]
    return entry


VARIANTS = {"original": (None, lambda e: e), "negative": (ImageOps.invert, lambda e: e),
            "mirrored": (ImageOps.mirror, mirrored)}


def variant_entries(corpus, out, name):
    """Writes the variant's pictures once; returns their truth entries, files relative to out."""
    change, truth = VARIANTS[name]
    pictures = json.load(open(os.path.join(corpus, "code-bench", "truth.json")))["pictures"]
    entries = []
    for entry in pictures:
        if entry["category"] not in bench_tables.CODE_ORDER:
            continue
        if change is None:
            entries.append(dict(entry, file=os.path.relpath(os.path.join(corpus, entry["file"]), out)))
            continue
        relative = os.path.join(name, entry["file"])
        path = os.path.join(out, relative)
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            change(Image.open(os.path.join(corpus, entry["file"])).convert("L")).save(path + ".part.jpg", quality=92)
            os.rename(path + ".part.jpg", path)
        entries.append(dict(truth(entry), file=relative))
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=os.path.join(ROOT, ".cache", "corpus"),
                        help="the corpus scripts/make-corpus made (default .cache/corpus); the copies go to its variants/")
    parser.add_argument("--lookout", default=os.path.join(ROOT, ".build", "release", "lookout"),
                        help="the lookout binary (default .build/release/lookout)")
    parser.add_argument("--readers", default="lookout,zbar,zxing", help="which readers, comma-separated (default all three)")
    parser.add_argument("--list", action="store_true", help="every miss and false code")
    args = parser.parse_args()
    args.scan_options = []
    readers = [r.strip() for r in args.readers.split(",") if r.strip()]
    if any(r not in bench_tables.NAMES for r in readers):
        sys.exit(f"variants: readers are {', '.join(bench_tables.NAMES)}")
    if not os.path.exists(os.path.join(args.corpus, "code-bench", "truth.json")):
        sys.exit(f"variants: no code-bench in {args.corpus} (scripts/make-corpus makes it)")
    if "lookout" in readers and not os.access(args.lookout, os.X_OK):
        sys.exit(f"variants: no {args.lookout} (scripts/release-build --product lookout builds it)")
    python = bench_tables.setup(readers)
    out = os.path.join(args.corpus, "variants")
    os.makedirs(out, exist_ok=True)
    for name in VARIANTS:
        entries = variant_entries(args.corpus, out, name)
        results, unavailable = bench_tables.read_code_groups(entries, [], out, readers, args, python, f"{name} pictures")
        print()
        print(bench_tables.table(f"code-bench, {name} (a code-free picture's every report is false)", bench_tables.CODE_ORDER,
                                 results, readers, label_all=False, unavailable=unavailable))


if __name__ == "__main__":
    main()
