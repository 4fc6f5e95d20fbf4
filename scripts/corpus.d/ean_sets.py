"""What the EAN-13 sets made by defocused_ean.py and small_ean.py share: a picture's label drawn
from zint's symbol, and the reading of the set by `lookout scan --types ean13` and by zxing-cpp
alone (its PyPI wheel), with the wrong texts and every miss printed."""
import argparse, json, os, subprocess, sys
from PIL import Image


def arguments(doc, out, one_picture=False, seeded=False, flags=(), options=()):
    """The sets' options; `flags` are (name, help) of a set's own on/off options, `options`
    (name, argparse keywords) its others."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lookout", default=".build/release/lookout")
    parser.add_argument("--out", default=out)
    for name, text in flags:
        parser.add_argument(name, action="store_true", help=text)
    for name, keywords in options:
        parser.add_argument(name, **keywords)
    if one_picture or seeded:
        parser.add_argument("--seed", type=int, default=11, help="another set of the same kind")
    if one_picture:
        parser.add_argument("--picture", type=int, help="make picture N only, into --to, and read nothing")
        parser.add_argument("--to", help="where --picture goes")
    parser.add_argument("scan_options", nargs="*")
    args = parser.parse_args()
    if one_picture and (args.picture is None) != (args.to is None):
        parser.error("--picture and --to go together")
    os.makedirs(args.out, exist_ok=True)
    return args


def symbol(digits, out, kind="EANX"):
    """zint's EAN-13 of the 12 digits (and their check digit), or another of zint's `kind`, a
    module a pixel, in grey levels."""
    path = os.path.join(out, f"symbol-{digits}.png")
    subprocess.run(["zint", "-b", kind, "--scale=1", "-d", digits, "-o", path], check=True, capture_output=True)
    image = Image.open(path).convert("L")
    os.remove(path)
    return image


def matrix_symbol(kind, text, out, options=()):
    """zint's symbol of `kind` (a 2-D or stacked one) holding `text`, a pixel a module, no quiet
    zone, as zint draws it (matrix_label.draw's input)."""
    path = os.path.join(out, f"symbol-{os.getpid()}.png")
    subprocess.run(["zint", "-b", kind, *options, "--scale=0.5", "-d", text, "-o", path], check=True, capture_output=True)
    image = Image.open(path)
    image.load()
    os.remove(path)
    return image


def evaluate(args, truth, describe, formats=("EAN13",), types="ean13", texts=lambda e: {e["digits"]}):
    """Reads the pictures of `truth` with Lookout (`--types` `types`) and zxing-cpp (its
    `formats`); a value read is right when its first 12 characters or the whole of it are one of
    the picture's `texts` (by default the first 12 digits of its EAN-13); `describe` says what a
    missed picture is."""
    import zxingcpp                                   # only to read: the accuracy environment's
    with open(os.path.join(args.out, "truth.json"), "w") as file:
        json.dump(truth, file, indent=1)
    result = subprocess.run([args.lookout, "scan", "--types", types, *args.scan_options, *[e["file"] for e in truth]],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{os.path.basename(sys.argv[0])}: lookout scan failed ({result.returncode}): {result.stderr.strip()}")
    found = {}
    for line in result.stdout.splitlines():
        record = json.loads(line)
        found.setdefault(record["source"], []).append(record["value"])
    wheel_formats = [getattr(zxingcpp.BarcodeFormat, f) for f in formats]
    read = {"lookout": 0, "zxing-cpp": 0}
    wrong = {"lookout": 0, "zxing-cpp": 0}
    for e in truth:
        values_read = {"lookout": found.get(e["file"], []),
                       "zxing-cpp": [b.text for b in zxingcpp.read_barcodes(Image.open(e["file"]), formats=wheel_formats)]}
        right = lambda value: value in texts(e) or value[:12] in texts(e)
        for reader, values in values_read.items():
            read[reader] += any(map(right, values))
            wrong[reader] += sum(not right(v) for v in values)
            for value in values:
                if not right(value):
                    print(f"  {reader} read {value} in {os.path.basename(e['file'])} ({describe(e)})")
        if not any(map(right, values_read["lookout"])):
            print(f"  lookout missed {os.path.basename(e['file'])} ({describe(e)})")
    for reader in read:
        print(f"{reader}: {read[reader]} of {len(truth)} read, {wrong[reader]} wrong texts")
