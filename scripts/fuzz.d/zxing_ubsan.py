#!/usr/bin/env python3
"""Judges the UndefinedBehaviorSanitizer reports of zxing fuzz runs (scripts/fuzz). zxing-cpp's fuzz
build reports undefined behaviour and goes on (scripts/zxing-cpp fuzz: -fsanitize-recover=undefined),
so that one benign report does not end the run; each report is then either one of KNOWN below,
read and found harmless in a release build, or new, which fails the run until someone has read it.
A report is keyed by its place and the first C++ source file of the stack (the place can be a
standard library template). Usage: zxing_ubsan.py LOG... ; prints one line per kind of report.
"""
import re
import sys

KNOWN = {
    # zxing-cpp 3.1.1, MicroPDF417 (read whenever PDF417 is asked): a row-address pattern of zero
    # width gives a module size of 0, 0/0 = NaN cast to int. x86-64 converts it to INT_MIN, ToInt
    # then refuses the negative pattern (returns -1), so the RAP is not read: no wrong read, no
    # out-of-bounds access. The sum in ToInt's assertion overflows on the same values (no NDEBUG
    # in the fuzz build; Lookout's release build has no assertion there).
    ("core/src/Pattern.h:329", "core/src/pdf417/MicroPDFReader.cpp:178"): "MicroPDF417 ReadRAP: NaN cast to int",
    ("c++/12/bits/stl_function.h:190", "core/src/pdf417/MicroPDFReader.cpp:178"): "MicroPDF417 ReadRAP: INT_MIN sum in ToInt's assertion",
    # DetermineSymbolInfo on a codeword matrix where no codeword was seen: the mean count is 0/0,
    # every candidate's error INT_MIN (the rows' sums are all 0), so the first symbol of the right
    # column count is taken; decoding it then fails its error correction.
    ("core/src/pdf417/MicroPDFReader.cpp:537", "core/src/pdf417/MicroPDFReader.cpp:537"): "MicroPDF417 DetermineSymbolInfo: NaN mean cast to int",
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
        if key in KNOWN:
            print(f"UBSan known: {KNOWN[key]} ({key[0]}, from {key[1]})")
        else:
            new += 1
            print(f"UBSan NEW: {message} at {key[0]}, from {key[1]}")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
