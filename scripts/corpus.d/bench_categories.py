"""What each category of the benchmark photographs holds (make_bench.py): its codes, their module
sizes and blur, labels placed for it, shelves of many codes, monitors, and the category's own
light and optics.
"""
import numpy as np
from PIL import Image, ImageDraw

import bench
import bench_camera
import bench_marks
from bench_codes import qr_code, symbol_size, version_general, weighted
from bench_sources import ink, paper, scene
from bench_labels import Placement, damage, label_for, logo, noncompliant, pathological, place_curved, place_flat, tpm_for


def plain_codes(rng, category):
    """The codes of a picture of a category other than `many`, `monitor` and `close`."""
    count = weighted(rng, [(1, 60), (2, 20), (3, 10), (4, 5), (5, 3), (6, 2)])
    if category in ("high_version", "curved", "pathological"):
        count = weighted(rng, [(1, 80), (2, 20)])
    codes = []
    for _ in range(count):
        if category == "high_version":
            codes.append(qr_code(rng, rng.randrange(15, 41)))
        elif category == "damaged":
            codes.append(qr_code(rng, version_general(rng), rng.choice("MQHH")))
        elif category == "noncompliant":
            codes.append(qr_code(rng, version_general(rng), rng.choice("MQHH")))
        else:
            codes.append(qr_code(rng, version_general(rng)))
    return codes


# Per category: module sizes (pixels: a share `small` of the codes from `module`'s low end to 2.8,
# the rest log-uniform over it) and the lens blur as a share of a module (a phone focused on the
# background, or a code across the room: the softer a small code, the sooner a reader without
# local thresholds loses it, while zxing-cpp's still reads it).
LOOKS = {"nominal": {"module": (1.9, 9), "blur": (0.2, 0.36), "small": 0.5},
         "rotations": {"module": (1.9, 9), "blur": (0.2, 0.36), "small": 0.5},
         "shadows": {"module": (1.9, 9), "blur": (0.2, 0.34), "small": 0.45},
         "high_version": {"module": (1.9, 5), "blur": (0.2, 0.34), "small": 0.5},
         "glare": {"module": (2.0, 9), "blur": (0.18, 0.32), "small": 0.35},
         "bright_spots": {"module": (2.0, 9), "blur": (0.2, 0.34), "small": 0.4},
         "brightness": {"module": (2.0, 9), "blur": (0.18, 0.32), "small": 0.4},
         "perspective": {"module": (2.2, 9), "blur": (0.18, 0.32), "small": 0.35},
         "curved": {"module": (2.2, 9), "blur": (0.18, 0.3), "small": 0.3},
         "damaged": {"module": (2.4, 9), "blur": (0.2, 0.34), "small": 0.35},
         "noncompliant": {"module": (2.6, 9), "blur": (0.15, 0.3), "small": 0.3},
         "pathological": {"module": (1.6, 8), "blur": (0.1, 0.22), "small": 0},
         "blurred": {"module": (2.4, 10), "blur": (0.1, 0.2), "small": 0},
         "close": {"module": (2, 10), "blur": (0.1, 0.2), "small": 0},
         "many": {"module": (2.6, 5), "blur": (0.2, 0.3), "small": 0}}


def module_range(category, size, code):
    n = symbol_size(code)[0] + 8
    # Large enough to read at all, at most about half the picture across.
    top = min(15, 0.55 * min(size) / n)
    lo, hi = LOOKS[category]["module"]
    return lo, min(hi, top)


def labels(rng, nrng, picture, size, f, category, cam, effects):
    """Printed labels, one per code, posed for the category, drawn into the picture."""
    codes = plain_codes(rng, category) if category != "close" else [qr_code(rng, rng.randrange(2, 11))]
    placements, taken = [], []
    for code in codes:
        style = {}
        tilt = abs(rng.gauss(0, 12))
        tilt = min(tilt, 35)
        roll = rng.gauss(0, 8) if rng.random() < 0.85 else rng.uniform(-180, 180)
        lo, hi = module_range(category, size, code)
        if hi < lo:
            continue
        # Half the codes small (far away, or small on the picture), half anywhere up to the top.
        small = rng.random() < LOOKS[category]["small"]
        module = rng.uniform(lo, min(hi, 2.8)) if small else np.exp(rng.uniform(np.log(lo), np.log(hi)))
        centre = None
        if category == "rotations":
            roll, tilt = rng.uniform(0, 360), min(tilt, 15)
        elif category == "perspective":
            tilt = rng.uniform(30, 58)
            f = size[0] * rng.uniform(0.6, 1.0)
            module = max(module, 3.5)
        elif category == "close":
            w = symbol_size(code)[0]
            module = rng.uniform(0.55, 0.92) * min(size) / w
            centre = (size[0] * rng.uniform(0.4, 0.6), size[1] * rng.uniform(0.4, 0.6))
            style["quiet"] = rng.choice([4, 4, 3, 2])
            style["margin"] = [4, 4, 4, 4]
            style["caption"] = False
            tilt = min(tilt, 20)
        elif category == "pathological":
            style, tilt, module = pathological(rng, style, tilt, module, cam, effects, code)
        elif category == "noncompliant":
            noncompliant(rng, style, code, effects)
        elif category == "high_version":
            tilt = min(tilt, 25)
        elif category in ("glare", "bright_spots"):
            style["paper"] = (246, 246, 244)
        if category == "curved":
            placement = place_curved(rng, nrng, picture, size, f, code, module, taken, style, effects)
            if placement:
                placements.append(placement)
            continue
        texture, tpm, u0, v0 = label_for(rng, code, module, style)
        if category == "damaged":
            damage(rng, nrng, texture, tpm, u0, v0, code, effects)
        if style.get("logo"):
            logo(rng, texture, tpm, u0, v0, code, style["logo"])
        box = (u0, v0, u0 + texture.shape[1] / tpm, v0 + texture.shape[0] / tpm)
        found = place_flat(rng, size, f, module, box, tilt, roll, taken, centre)
        if found is None:
            continue
        surface, picture_box, module = found
        ss = 2 if module < 4 else 1
        area = bench.render(picture, surface, texture, tpm, u0, v0, ss)
        taken.append(picture_box)
        placement = Placement(code, surface, (0, 0))
        placement.module, placement.box, placement.area = module, picture_box, area
        placements.append(placement)
    return placements


def many_codes(rng, nrng, effects):
    """A sheet of stickers or a shelf of labels: 10 to 60 small codes in a grid, some touching,
    in a picture large enough for modules of 2.6 to 5 pixels. Returns the picture's size, the
    picture and the placements."""
    count = int(rng.triangular(10, 61, 12))
    aspect = rng.choice([4 / 3, 4 / 3, 3 / 4, 16 / 9])
    aspect = aspect * rng.uniform(0.8, 1.25)
    cols = max(2, int(round((count * aspect) ** 0.5)))
    rows = int(np.ceil(count / cols))
    same = rng.random() < 0.6
    version = rng.choice([1, 1, 2, 2, 3, 4])
    shelf = rng.random() < 0.2
    quiet = rng.choice([4, 4, 3, 2]) if not shelf else rng.choice([2, 3, 4])
    gap = rng.choice([0, 0, 0.5, 1, 2, 4]) if not shelf else rng.uniform(1, 5)
    effects.append("shelf" if shelf else "sheet")
    if gap == 0:
        effects.append("touching")
    codes = [qr_code(rng, version if same else rng.choice([1, 1, 2, 2, 3, 4, 5]), small=True) for _ in range(count)]
    n = max(symbol_size(c)[0] for c in codes)
    cell_w = n + 2 * quiet + gap
    caption = shelf or rng.random() < 0.3
    cell_h = n + 2 * quiet + gap + (n * 0.45 if caption else 0) + (2 if shelf else 0)
    border = rng.uniform(2, 8)
    width_modules = cols * cell_w + 2 * border
    height_modules = rows * cell_h + 2 * border
    # The sheet takes 55-95% of the frame at the modules wanted: the frame follows (12 MP at most).
    fill = rng.uniform(0.55, 0.95)
    module = rng.uniform(2.6, 5)
    frame_aspect = rng.choice([4 / 3, 3 / 4]) if rng.random() < 0.9 else 16 / 9
    width = max(width_modules * module / fill, height_modules * module / fill * frame_aspect)
    width = min(width, (12e6 * frame_aspect) ** 0.5)
    size = (int(width / 8) * 8, int(width / frame_aspect / 8) * 8)
    module = fill * min(size[0] / width_modules, size[1] / height_modules)
    picture = scene(rng, size)
    f = size[0] * rng.uniform(0.75, 1.3)
    tpm = tpm_for(module)
    sheet_colour = paper(rng)
    sheet = np.empty((int(np.ceil(height_modules * tpm)), int(np.ceil(width_modules * tpm)), 4), np.uint8)
    sheet[..., :3] = sheet_colour if not shelf else (70, 72, 78)
    sheet[..., 3] = 255
    label_ink = ink(rng)
    origins = []
    for k, code in enumerate(codes):
        r, c = divmod(k, cols)
        cu = border + c * cell_w + gap / 2
        cv = border + r * cell_h + gap / 2
        w = symbol_size(code)[0]
        off = (n - w) / 2
        style = {"quiet": quiet + off, "margin": [0, 0, 0, (n * 0.45 if caption else 0)], "caption": False,
                 "paper": sheet_colour if not shelf else rng.choice([(248, 246, 240), (250, 235, 120), (245, 245, 245)]),
                 "ink": label_ink, "tpm": tpm}
        texture, _, u0, v0 = label_for(rng, code, module, style)
        if caption:
            th, tw = texture.shape[:2]
            bench.scribble_text(texture, rng, (tpm, (n + 2 * quiet + 2 * off) * tpm, tw - tpm, th - tpm // 2), label_ink,
                                max(2, tpm * rng.uniform(1.5, 3)))
        paste_u, paste_v = cu + quiet + off, cv + quiet + off
        bench.paste_texture(sheet, tpm, texture, paste_u, paste_v, u0, v0)
        origins.append((paste_u, paste_v))
    box = (0, 0, width_modules, height_modules)
    tilt = abs(rng.gauss(0, 14))
    roll = rng.gauss(0, 10) if rng.random() < 0.8 else rng.choice([90, 180, -90]) + rng.gauss(0, 5)
    centre = (size[0] * rng.uniform(0.4, 0.6), size[1] * rng.uniform(0.4, 0.6))
    found = place_flat(rng, size, f, module, box, tilt, roll, [], centre, shrink=0.92)
    if found is None:
        return size, picture, []
    surface, picture_box, module = found
    area = bench.render(picture, surface, sheet, tpm, 0, 0, 2 if module < 4 else 1)
    placements = []
    for code, origin in zip(codes, origins):
        p = Placement(code, surface, origin)
        p.module = module
        xs, ys = zip(*p.corners())
        p.box, p.area = (min(xs), min(ys), max(xs), max(ys)), area
        placements.append(p)
    return size, picture, placements


def monitor(rng, nrng, picture, size, f, cam, effects):
    """A code shown on a screen: a page with the code on a display of RGB stripes and a black
    matrix, seen at an angle; its own light (gamma, over-exposure), the room reflected in the glass."""
    code = qr_code(rng, version_general(rng))
    n = symbol_size(code)[0]
    k = rng.choice([2, 3, 3, 4, 4, 5, 6, 8])
    quiet = rng.choice([4, 4, 4, 2, 1])
    code_px = n * k
    page_w = int(code_px + 2 * quiet * k + rng.uniform(0.2, 1.5) * code_px)
    page_h = int(code_px + 2 * quiet * k + rng.uniform(0.3, 1.2) * code_px)
    dark_mode = rng.random() < 0.2
    page = np.full((page_h, page_w, 3), (28, 28, 32) if dark_mode else (250, 250, 250), np.uint8)
    cx = rng.randrange(quiet * k, page_w - code_px - quiet * k + 1)
    cy = rng.randrange(quiet * k, page_h - code_px - quiet * k + 1)
    # UI: a title bar and text around the code.
    ui = Image.fromarray(page)
    draw = ImageDraw.Draw(ui)
    bar = rng.randrange(8, 24)
    draw.rectangle([0, 0, page_w, bar], fill=rng.choice([(40, 90, 200), (60, 60, 60), (200, 60, 40)]))
    page = np.asarray(ui).copy()
    text = np.dstack([page, np.full(page.shape[:2], 255, np.uint8)])
    bench.scribble_text(text, rng, (4, bar + 6, page_w - 4, page_h - 4), (90, 90, 90) if not dark_mode else (180, 180, 180), rng.randrange(5, 10))
    page = text[..., :3].copy()
    page[cy - quiet * k:cy + code_px + quiet * k, cx - quiet * k:cx + code_px + quiet * k] = (250, 250, 250)
    page[cy:cy + code_px, cx:cx + code_px] = np.where(np.kron(code["matrix"], np.ones((k, k), np.uint8))[..., None] == 1,
                                                     np.array([15, 15, 15], np.uint8), np.array([250, 250, 250], np.uint8))
    gamma = rng.uniform(0.7, 1.6)
    page = (255 * (page / 255.0) ** gamma).astype(np.uint8)
    # The panel: 6 texels a screen pixel, R G B stripes two texels each, one texel row of black matrix.
    tpm = 6
    stripes = np.zeros((page_h * tpm, page_w * tpm, 3), np.uint8)
    for b in range(6):
        stripes[:, b::6, b // 2] = np.repeat(page[:, :, b // 2], tpm, axis=0)
    stripes[tpm - 1::tpm] = 0
    bezel = rng.randrange(6, 30)
    panel = np.full(((page_h + 2 * bezel) * tpm, (page_w + 2 * bezel) * tpm, 4), 255, np.uint8)
    panel[..., :3] = rng.choice([(18, 18, 20), (35, 35, 38), (200, 200, 205)])
    panel[bezel * tpm:(bezel + page_h) * tpm, bezel * tpm:(bezel + page_w) * tpm, :3] = stripes
    # Screen pixel pitch in picture pixels, so that a module is 1.6-15 pixels.
    pitch = np.exp(rng.uniform(np.log(max(0.6, 1.6 / k)), np.log(min(3.0, 15 / k))))
    box = (-bezel, -bezel, page_w + bezel, page_h + bezel)
    tilt = abs(rng.gauss(0, 15))
    roll = rng.gauss(0, 8) if rng.random() < 0.85 else rng.uniform(-180, 180)
    found = place_flat(rng, size, f, pitch, box, tilt, roll, [], None, shrink=0.9)
    if found is None:
        return []
    surface, picture_box, pitch = found
    gain = rng.uniform(2.2, 3.6)
    # The screen's light, added: the panel rendered onto black, scaled, with the room reflected in its glass.
    emitted = np.zeros_like(picture)
    area = bench.render(emitted, surface, panel, tpm, -bezel, -bezel, 2, emissive=True)
    x0, y0, x1, y1 = area
    xs, ys = bench.outline(surface, *box, steps=2)
    mask_image = Image.new("L", (x1 - x0, y1 - y0), 0)
    ImageDraw.Draw(mask_image).polygon([(x - x0, y - y0) for x, y in zip(xs, ys)], fill=255)
    mask = np.asarray(mask_image, np.float32)[..., None] / 255
    backdrop = picture[y0:y1, x0:x1]
    reflection = np.asarray(bench_camera.gaussian(Image.fromarray(backdrop.astype(np.uint8)), rng.uniform(4, 20)), np.float32)
    picture[y0:y1, x0:x1] = backdrop * (1 - mask) + (emitted[y0:y1, x0:x1] * gain + reflection * rng.uniform(0.03, 0.2)) * mask
    cam["blur"] = rng.uniform(0.5, 1.6)
    cam["exposure"] = rng.uniform(0.8, 1.2)
    effects += ["screen", f"{k} px a module", "dark mode" if dark_mode else "light mode"]
    # The panel's plane counts screen pixels: the symbol is k of them a module.
    placement = Placement(code, surface, (cx, cy), scale=k)
    placement.module = pitch * k
    xs, ys = zip(*placement.corners())
    placement.box, placement.area = (min(xs), min(ys), max(xs), max(ys)), area
    return [placement]


def scene_effects(rng, nrng, picture, size, category, placements, cam, effects):
    """The effects a category is about, over its codes: blur, light, shadows, glare, spots."""
    boxes = [p.box for p in placements] or [(size[0] * 0.3, size[1] * 0.3, size[0] * 0.7, size[1] * 0.7)]
    modules = [p.module for p in placements] or [4]
    module = float(np.median(modules))
    if category in LOOKS:
        cam["blur"] = float(np.clip(module * rng.uniform(*LOOKS[category]["blur"]), cam["blur"], 3.0))
    if category == "blurred":
        if rng.random() < 0.65:
            cam["blur"] = module * rng.uniform(0.28, 0.42)
            effects.append("defocus")
        if rng.random() < 0.4 or "defocus" not in effects:
            cam["motion"] = (module * rng.uniform(0.5, 1.1), rng.uniform(0, np.pi))
            effects.append("motion")
    elif category == "close":
        cam["blur"] = module * rng.uniform(0.1, 0.35)
        cam["read_noise"] = rng.uniform(1.5, 6)
        effects.append("defocus")
    elif category == "shadows":
        for box in boxes[:3]:
            hard = rng.random() < 0.5
            bench_marks.shadow(picture, rng, nrng, box, hard, rng.uniform(0.3, 0.7))
            effects.append("hard shadow" if hard else "soft shadow")
    elif category == "glare":
        for box in boxes[:3]:
            bench_marks.glare(picture, rng, box, rng.uniform(0.25, 0.8), rng.uniform(0.08, 0.22), rng.uniform(0.03, 0.15))
        effects.append("glare")
    elif category == "bright_spots":
        for p in placements[:3]:
            bench_marks.spots(picture, rng, p.box, rng.randrange(1, 6), p.module * rng.uniform(0.5, 1.8), rng.uniform(0.8, 3))
        effects.append("spots")
    elif category == "brightness":
        if rng.random() < 0.5:
            cam["exposure"] = rng.uniform(0.12, 0.35)
            cam["gain"] = rng.uniform(1.5, 3)
            cam["read_noise"] = rng.uniform(1.5, 4)
            effects.append("under-exposed")
        else:
            cam["exposure"] = rng.uniform(1.2, 1.9)
            bench_marks.bloom(picture, module * rng.uniform(0.5, 1.5), rng.uniform(0.1, 0.5))
            effects.append("over-exposed")
    elif category == "high_version":
        cam["blur"] = rng.uniform(0.4, 0.9)
    elif category == "nominal":
        cam["blur"] = min(cam["blur"], 0.8)
    if category in ("glare", "bright_spots") and rng.random() < 0.5:
        cam["exposure"] *= rng.uniform(1.0, 1.3)
