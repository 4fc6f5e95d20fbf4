#!/usr/bin/env python3
"""Judges the UndefinedBehaviorSanitizer reports of zxing fuzz runs (scripts/fuzz). zxing-cpp's fuzz
build reports undefined behaviour and goes on (scripts/zxing-cpp fuzz: -fsanitize-recover=undefined),
so that one benign report does not end the run; each report is then either one of KNOWN below,
read and found harmless in a release build, or new, which fails the run until someone has read it.
A report is keyed by its place and the first C++ source file of the stack (the place can be a
standard library template, or a helper whose every caller was read: "*"). Usage: zxing_ubsan.py LOG... ; prints one line per kind of report.
"""
import re
import sys

KNOWN = {
    # zxing-cpp 3.1.1, PDF417 and MicroPDF417 (MicroPDF417 is read whenever PDF417 is asked): a
    # pattern read with the module cursor can be all zero widths (at the image's edge), so its
    # module size is 0 and 0/0 = NaN is cast to int. x86-64 gives INT_MIN (aarch64 0); every caller
    # then refuses the pattern: NormalizedPattern's error sum wraps to 17 and it returns zeros,
    # ToInt and PackedPattern return -1 for negative widths, CodewordCluster's sums cancel, so
    # the RAP or codeword is not read: no wrong read, no out-of-bounds access. Any caller ("*").
    ("core/src/Pattern.h:329", "*"): "PDF417/MicroPDF417 pattern of zero width: NaN cast to int (NormalizedE2EPattern)",
    ("core/src/Pattern.h:360", "*"): "PDF417/MicroPDF417 pattern of zero width: NaN cast to int (NormalizedPattern)",
    ("core/src/Pattern.h:362", "*"): "PDF417/MicroPDF417 pattern of zero width: INT_MIN in NormalizedPattern's error sum",
    # DetermineSymbolInfo on a codeword matrix where no codeword was seen: the mean count is 0/0,
    # every candidate's error INT_MIN (the rows' sums are all 0), so the first symbol of the right
    # column count is taken; decoding it then fails its error correction.
    ("core/src/pdf417/MicroPDFReader.cpp:537", "core/src/pdf417/MicroPDFReader.cpp:537"): "MicroPDF417 DetermineSymbolInfo: NaN mean cast to int",
    # LocalGrid::adjustOriginAndStep (Aztec and DataMatrix detectors) with a step of NaN length:
    # `int(6 * modSize)` is INT_MIN on x86-64, so stepToEdge's `steps < range` fails at once and
    # both directions take 0 steps; nothing is added to its list and it returns before using the
    # step (aarch64 gives 0, no limit, and the cursor stops at the image's edge). No wrong read,
    # no out-of-bounds access. First seen by a CI run's fuzz pass (2026-11-30).
    ("core/src/LocalGrid.cpp:52", "core/src/LocalGrid.cpp:52"): "Aztec/DataMatrix local grid of NaN step: NaN cast to int (adjustOriginAndStep)",
}

REPORT = re.compile(r"^(\S+?):(\d+):\d+: runtime error: (.*)$")
FRAME = re.compile(r"^\s+#\d+ 0x[0-9a-f]+ in .* (\S+?):(\d+)(?::\d+)?$")


def place(path, line):
    path = re.sub(r"^.*?zxing_cpp-[^/]+/|^.*?/include/(?=c\+\+/)|^.*?/(?=(Sources|scripts)/)", "", path)
    return f"{path}:{line}"


def reports(log):
    lines = open(log, errors="replace").read().splitlines()
    for i, text in enumerate(lines):
        found = REPORT.match(text)
        if not found:
            continue
        caller = "?"
        for frame in lines[i + 1:i + 40]:
            framed = FRAME.match(frame)
            if framed is None:
                if not frame.strip().startswith("#"):
                    break
                continue
            if framed.group(1).endswith(".cpp"):
                caller = place(*framed.groups())
                break
        yield (place(found.group(1), found.group(2)), caller), found.group(3)


def main():
    seen = {}
    for log in sys.argv[1:]:
        for key, message in reports(log):
            seen.setdefault(key, message)
    new = 0
    for key, message in sorted(seen.items()):
        reason = KNOWN.get(key) or KNOWN.get((key[0], "*"))
        if reason:
            print(f"UBSan known: {reason} ({key[0]}, from {key[1]})")
        else:
            new += 1
            print(f"UBSan NEW: {message} at {key[0]}, from {key[1]}")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
