#!/usr/bin/python3
"""Opens Lookout's web view in headless Chromium and checks that it draws the camera's masks and
zones (from /api/status) where they are: each drawn polygon, in screen pixels, must cover the
region's bounding box mapped onto the picture's on-screen rectangle within 1 % of the picture's
width, and each zone must be labelled with its name.

usage: check-regions.py URL [--screenshot PNG] [--timeout SECONDS]

URL is the page (ending in /). Prints one JSON line with what it found; exits 0 when every mask
and zone is drawn in place. Needs chromium and python3-websocket (Debian packages)."""
import importlib.util
import json
import os
import sys
import time
import urllib.request

spec = importlib.util.spec_from_file_location("check_web_view", os.path.join(os.path.dirname(__file__), "check-web-view.py"))
check_web_view = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_web_view)

# The regions drawn, each with its kind, name, label and on-screen rectangle, and the picture's rectangle.
READ_PAGE = """(() => {
  const picture = document.getElementById("picture");
  const img = picture.getBoundingClientRect();
  const regions = [...document.querySelectorAll("#boxes g.mask, #boxes g.zone")].map((g) => {
    const r = g.querySelector("polygon").getBoundingClientRect();
    const text = g.querySelector("text");
    return {kind: g.getAttribute("class"), name: g.dataset.name || null, label: text ? text.textContent : null,
            points: g.querySelector("polygon").points.length, left: r.left, top: r.top, width: r.width, height: r.height};
  });
  return JSON.stringify({picture: {left: img.left, top: img.top, width: img.width, height: img.height,
                                   loaded: picture.naturalWidth > 0}, regions});
})()"""


def expected_rect(points, picture):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return {"left": picture["left"] + min(xs) * picture["width"], "top": picture["top"] + min(ys) * picture["height"],
            "width": (max(xs) - min(xs)) * picture["width"], "height": (max(ys) - min(ys)) * picture["height"]}


def main():
    args, screenshot, timeout = check_web_view.options(sys.argv[1:])
    url = args[0]
    status = json.load(urllib.request.urlopen(url + "api/status", timeout=10))
    wanted = [("mask", None, points) for points in status["masks"]] + [("zone", z["name"], z["points"]) for z in status["zones"]]

    browser = check_web_view.Browser()
    try:
        page = browser.open(url, READ_PAGE, time.time() + timeout, lambda page: len(page["regions"]) >= len(wanted))
        report = {"url": url, "wanted": len(wanted), "page": page, "checks": []}
        ok = page is not None and page["picture"]["loaded"] and len(page["regions"]) == len(wanted) and len(wanted) > 0
        for index, (kind, name, points) in enumerate(wanted):
            drawn = page["regions"][index] if page and index < len(page["regions"]) else None
            if drawn is None or drawn["kind"] != kind or drawn["name"] != name or drawn["points"] != len(points):
                report["checks"].append({"kind": kind, "name": name, "drawn": drawn, "error": "not drawn as such"})
                ok = False
                continue
            expected = expected_rect(points, page["picture"])
            error = max(abs(drawn[k] - expected[k]) for k in expected)
            tolerance = 0.01 * page["picture"]["width"]
            check = {"kind": kind, "name": name, "label": drawn["label"], "error_px": round(error, 2),
                     "tolerance_px": round(tolerance, 2)}
            report["checks"].append(check)
            ok = ok and error <= tolerance and drawn["label"] == name
        check_web_view.conclude(browser, report, ok, screenshot)
    finally:
        browser.close()


if __name__ == "__main__":
    main()
