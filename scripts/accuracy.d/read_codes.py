"""Reads codes in pictures with ZBar or zxing-cpp, for scripts/accuracy's side-by-side tables.

Usage: read_codes.py zbar|zxing TYPES FILE...   (TYPES: qr,ean13,pdf417,aztec,datamatrix)
Prints one JSON line per code read: source, type, raw_base64, points (picture pixels). Each
picture is opened with PIL and given as 8-bit grey to the reader, as zbarimg does.

ZBar: libzbar (Debian's libzbar0, which zbarimg uses) through ctypes, configured as
`zbarimg -Sdisable -S<type>.enable -Sbinary` would be: zbarimg 0.23.92's --xml gives no symbol
points, the library does (zbar_symbol_get_loc_*). ZBar has no Aztec or DataMatrix reader, and its
PDF417 reader finds but does not decode, so it is asked for QR and EAN-13 only.
zxing-cpp: the zxingcpp module (the PyPI wheel, pinned by scripts/accuracy) with its defaults,
formats limited to TYPES.
"""
import base64
import ctypes
import json
import sys

from PIL import Image

ZBAR_TYPES = {"qr": 64, "ean13": 13}


def zbar_reader(types):
    lib = ctypes.CDLL("libzbar.so.0")
    lib.zbar_image_scanner_create.restype = ctypes.c_void_p
    lib.zbar_image_create.restype = ctypes.c_void_p
    lib.zbar_image_first_symbol.restype = ctypes.c_void_p
    lib.zbar_image_first_symbol.argtypes = [ctypes.c_void_p]
    lib.zbar_symbol_next.restype = ctypes.c_void_p
    lib.zbar_symbol_next.argtypes = [ctypes.c_void_p]
    lib.zbar_symbol_get_data.restype = ctypes.POINTER(ctypes.c_char)
    lib.zbar_symbol_get_data.argtypes = [ctypes.c_void_p]
    for name in ("zbar_symbol_get_data_length", "zbar_symbol_get_loc_size", "zbar_symbol_get_type"):
        getattr(lib, name).argtypes = [ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.c_uint
    for name in ("zbar_symbol_get_loc_x", "zbar_symbol_get_loc_y"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_uint]
        getattr(lib, name).restype = ctypes.c_int
    lib.zbar_image_scanner_set_config.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.zbar_image_set_format.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    lib.zbar_image_set_size.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint]
    lib.zbar_image_set_data.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p]
    lib.zbar_scan_image.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.zbar_image_destroy.argtypes = [ctypes.c_void_p]
    scanner = lib.zbar_image_scanner_create()
    enable, binary = 0, 4  # ZBAR_CFG_ENABLE, ZBAR_CFG_BINARY
    lib.zbar_image_scanner_set_config(scanner, 0, enable, 0)
    for kind in types:
        lib.zbar_image_scanner_set_config(scanner, ZBAR_TYPES[kind], enable, 1)
        lib.zbar_image_scanner_set_config(scanner, ZBAR_TYPES[kind], binary, 1)
    names = {v: k for k, v in ZBAR_TYPES.items()}
    y800 = ord("Y") | ord("8") << 8 | ord("0") << 16 | ord("0") << 24

    def read(image):
        grey = image.convert("L")
        data = grey.tobytes()
        buffer = ctypes.create_string_buffer(data, len(data))
        zimage = lib.zbar_image_create()
        lib.zbar_image_set_format(zimage, y800)
        lib.zbar_image_set_size(zimage, grey.width, grey.height)
        lib.zbar_image_set_data(zimage, ctypes.cast(buffer, ctypes.c_void_p), len(data), None)
        lib.zbar_scan_image(scanner, zimage)
        found = []
        symbol = lib.zbar_image_first_symbol(zimage)
        while symbol:
            kind = names.get(lib.zbar_symbol_get_type(symbol) & 0xff, "other")
            raw = ctypes.string_at(lib.zbar_symbol_get_data(symbol), lib.zbar_symbol_get_data_length(symbol))
            points = [[lib.zbar_symbol_get_loc_x(symbol, i), lib.zbar_symbol_get_loc_y(symbol, i)]
                      for i in range(lib.zbar_symbol_get_loc_size(symbol))]
            found.append((kind, raw, points))
            symbol = lib.zbar_symbol_next(symbol)
        lib.zbar_image_destroy(zimage)
        return found

    return read


def zxing_reader(types):
    import zxingcpp
    formats = {"qr": zxingcpp.BarcodeFormat.QRCode, "ean13": zxingcpp.BarcodeFormat.EAN13,
               "pdf417": zxingcpp.BarcodeFormat.PDF417, "aztec": zxingcpp.BarcodeFormat.Aztec,
               "datamatrix": zxingcpp.BarcodeFormat.DataMatrix}
    names = {formats[k]: k for k in types}
    wanted = tuple(formats[k] for k in types)

    def read(image):
        found = []
        for result in zxingcpp.read_barcodes(image.convert("L"), formats=wanted):
            p = result.position
            points = [[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                      [p.bottom_right.x, p.bottom_right.y], [p.bottom_left.x, p.bottom_left.y]]
            found.append((names.get(result.format, str(result.format)), bytes(result.bytes), points))
        return found

    return read


def main():
    reader, types, files = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
    if reader == "zbar":
        types = [t for t in types if t in ZBAR_TYPES]
    read = (zbar_reader if reader == "zbar" else zxing_reader)(types)
    for path in files:
        with Image.open(path) as image:
            image.load()
            results = read(image) if types else []
        for kind, raw, points in results:
            print(json.dumps({"source": path, "type": kind, "raw_base64": base64.b64encode(raw).decode(), "points": points}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
