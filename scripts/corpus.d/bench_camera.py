"""The phone camera of the benchmark photographs (make_bench.py): lens blur and shake, exposure,
sensor noise, sharpening and JPEG.
"""
import numpy as np
from PIL import Image, ImageFilter


def to_image(picture):
    return Image.fromarray(np.clip(picture, 0, 255, out=picture).astype(np.uint8))


_NOISE = {}


def noise_plane(nrng, shape):
    """Unit Gaussian noise of `shape` (H x W): a window of a fixed 4096 x 4096 field at a random
    offset (drawing megapixels of fresh noise for each picture costs more than all the rest)."""
    if "field" not in _NOISE:
        _NOISE["field"] = np.random.default_rng(1234).standard_normal((4096, 4096), dtype=np.float32)
    field = _NOISE["field"]
    h, w = shape
    if h > 4096 or w > 4096:
        field = np.tile(field, (h // 4096 + 1, w // 4096 + 1))
    oy, ox = int(nrng.integers(field.shape[0] - h + 1)), int(nrng.integers(field.shape[1] - w + 1))
    return field[oy:oy + h, ox:ox + w]


def noise_run(nrng, n):
    """`n` values of unit Gaussian noise in a row: a run of the fixed field (or of it repeated)."""
    noise_plane(nrng, (1, 1))
    field = _NOISE["field"].reshape(-1)
    if n > field.size:
        field = np.tile(field, n // field.size + 1)
    start = int(nrng.integers(field.size - n + 1))
    return field[start:start + n]


def gaussian(image, sigma):
    """A Gaussian blur of `sigma` pixels, as one box blur (small sigmas) or two of the variance
    it needs: PIL's GaussianBlur costs three box blurs whatever the sigma."""
    if sigma < 0.25:
        return image
    passes = 1 if sigma <= 0.8 else 2
    radius = (np.sqrt(1 + 12 * sigma * sigma / passes) - 1) / 2
    for _ in range(passes):
        image = image.filter(ImageFilter.BoxBlur(radius))
    return image


def motion_blur(image, length, angle):
    """A straight motion blur of `length` pixels at `angle` radians: the mean of shifted copies."""
    a = np.asarray(image, np.float32)
    steps = max(2, int(round(length)) + 1)
    total = np.zeros_like(a)
    h, w = a.shape[:2]
    for k in range(steps):
        s = (k / (steps - 1) - 0.5) * length
        dx, dy = int(round(s * np.cos(angle))), int(round(s * np.sin(angle)))
        shifted = np.roll(a, (dy, dx), (0, 1))
        total += shifted
    return to_image(total / steps)


def optics(image, blur, motion, regions):
    """Lens blur (Gaussian, `blur` pixels) and shake (`motion`: length, angle) over the picture,
    or over each of `regions` widened by the blur's reach when they cover less than half of it."""
    def apply(part):
        if blur > 0.05:
            part = gaussian(part, blur)
        if motion is not None and motion[0] >= 1:
            part = motion_blur(part, *motion)
        return part

    if blur <= 0.05 and (motion is None or motion[0] < 1):
        return image
    w, h = image.size
    pad = int(np.ceil(3 * blur + (motion[0] if motion else 0))) + 2
    boxes = []
    for x0, y0, x1, y1 in regions or []:
        boxes.append((max(0, int(x0) - 2 * pad), max(0, int(y0) - 2 * pad), min(w, int(np.ceil(x1)) + 2 * pad),
                      min(h, int(np.ceil(y1)) + 2 * pad)))
    if not boxes or sum((b[2] - b[0]) * (b[3] - b[1]) for b in boxes) > 0.5 * w * h:
        return apply(image)
    out = image.copy()
    for x0, y0, x1, y1 in boxes:
        part = apply(image.crop((x0, y0, x1, y1)))
        # Keep the inner part, whose blur saw all its neighbours (or the picture's edge).
        ix0, iy0 = (pad if x0 > 0 else 0), (pad if y0 > 0 else 0)
        ix1, iy1 = (x1 - x0 - pad if x1 < w else x1 - x0), (y1 - y0 - pad if y1 < h else y1 - y0)
        out.paste(part.crop((ix0, iy0, ix1, iy1)), (x0 + ix0, y0 + iy0))
    return out


def camera(picture, rng, nrng, blur, motion, exposure, gain, read_noise, shot_noise, sharpen, regions=None):
    """The phone: lens blur and shake on the scene, exposure (clipping), sensor noise, the picture
    brightened by `gain` (noise and all), a touch of sharpening. Blur is spent only on `regions`
    (picture boxes round the codes) when they are a small part of the picture: the backgrounds
    are enlarged photographs, soft already. Returns a PIL image."""
    image = to_image(picture)
    image = optics(image, blur, motion, regions)
    a = np.asarray(image, np.float32)
    h, w = a.shape[:2]
    # Noise grows with the light a pixel took (shot noise) over a floor (read noise); mostly in
    # brightness, some in colour.
    sigma = np.sqrt(read_noise ** 2 + shot_noise * exposure * a[..., 1])
    a *= exposure * gain
    sigma *= noise_plane(nrng, (h, w))
    sigma *= 0.85 * gain
    a += sigma[..., None]
    a += (0.35 * gain * read_noise) * noise_run(nrng, h * w * 3).reshape(h, w, 3)
    image = to_image(a)
    if sharpen:
        image = image.filter(ImageFilter.UnsharpMask(radius=sharpen[0], percent=sharpen[1], threshold=2))
    return image
