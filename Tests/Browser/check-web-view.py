#!/usr/bin/python3
"""Opens Lookout's web view in headless Chromium (through the DevTools protocol) and checks that
the page draws a box for each expected kind of object where the detections are.

usage: check-web-view.py URL DETECTIONS.jsonl KIND... [--screenshot PNG] [--timeout SECONDS]

DETECTIONS.jsonl holds the detection lines of the same run (stdout of `lookout run`); for each
KIND (qr, ean13, face) the detection line of the frame the page's box names (data-frame) is
where its box must be: the box drawn on the page, in screen pixels, must cover the detection's
pixel_bounds mapped onto the picture's on-screen rectangle, within 2 % of the picture's width. Prints one JSON line with what it found;
exits 0 when every kind is in place. Needs chromium and python3-websocket (Debian packages)."""
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="lookout-chromium-")
        port = free_port()
        chromium = shutil.which("chromium") or shutil.which("chromium-browser")
        if not chromium:
            sys.exit("chromium is not installed (apt-get install chromium)")
        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
             "--no-first-run", f"--user-data-dir={self.profile}", f"--remote-debugging-port={port}",
             "--remote-allow-origins=*", "--window-size=1400,860", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 30
        while True:
            try:
                pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2))
                page = next(p for p in pages if p.get("type") == "page")
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def open(self, url, read_page, deadline, done):
        """Loads `url` and reads it with the script `read_page` (giving JSON with `picture.loaded`)
        until the picture is loaded and `done(page)` holds, or `deadline`: the last page read."""
        self.call("Page.enable")
        self.call("Page.navigate", url=url)
        page = None
        while time.time() < deadline:
            page = json.loads(self.evaluate(read_page) or "null") if self.evaluate("document.readyState") == "complete" else None
            if page and page["picture"]["loaded"] and done(page):
                break
            # Wait on the page itself: its next change (a box drawn, the picture loaded, the
            # document complete), bounded so a page that never changes is read again.
            self.evaluate(NEXT_CHANGE)
        return page

    def close(self):
        try:
            self.socket.close()
        finally:
            self.process.kill()
            self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


# The boxes on the page, each with its kind, label and on-screen rectangle, and the picture's rectangle.
NEXT_CHANGE = """new Promise((resolve) => {
  let timer = null;
  const observer = new MutationObserver(() => finish());
  const finish = () => { observer.disconnect(); clearTimeout(timer); resolve(true); };
  observer.observe(document, {subtree: true, childList: true, attributes: true});
  document.addEventListener("readystatechange", finish, {once: true});
  const picture = document.getElementById("picture");
  if (picture) picture.addEventListener("load", finish, {once: true});
  timer = setTimeout(finish, 1000);
})"""

READ_PAGE = """(() => {
  const img = document.getElementById("picture").getBoundingClientRect();
  const svg = document.getElementById("boxes");
  const boxes = [...document.querySelectorAll("#boxes g.box")].map((g) => {
    const r = g.querySelector("polygon").getBoundingClientRect();
    return {kind: g.dataset.type, label: g.dataset.label, frame: Number(g.dataset.frame), left: r.left, top: r.top, width: r.width, height: r.height};
  });
  const picture = document.getElementById("picture");
  const overlay = svg.getBoundingClientRect();
  return JSON.stringify({picture: {left: img.left, top: img.top, width: img.width, height: img.height,
                                   loaded: picture.naturalWidth > 0},
                         overlay: {left: overlay.left, top: overlay.top, width: overlay.width, height: overlay.height},
                         viewBox: svg.getAttribute("viewBox"), boxes});
})()"""


def options(args):
    """The arguments without `--screenshot PNG` and `--timeout SECONDS`, and those two."""
    screenshot = None
    timeout = 30.0
    if "--screenshot" in args:
        i = args.index("--screenshot")
        screenshot = args[i + 1]
        del args[i:i + 2]
    if "--timeout" in args:
        i = args.index("--timeout")
        timeout = float(args[i + 1])
        del args[i:i + 2]
    return args, screenshot, timeout


def conclude(browser, report, ok, screenshot):
    """Takes the screenshot asked for, prints the report and exits 0 when `ok`."""
    if screenshot:
        shot = browser.call("Page.captureScreenshot", format="png")
        with open(screenshot, "wb") as out:
            out.write(base64.b64decode(shot["data"]))
    report["ok"] = ok
    print(json.dumps(report))
    sys.exit(0 if ok else 1)


def main():
    args, screenshot, timeout = options(sys.argv[1:])
    url, detections_path, kinds = args[0], args[1], args[2:]

    browser = Browser()
    try:
        deadline = time.time() + timeout
        page = browser.open(url, READ_PAGE, deadline,
                            lambda page: all(any(b["kind"] == k for b in page["boxes"]) for k in kinds))
        # Detections are read after the page; the lines of the boxes' frames may take a moment more
        # (within the same deadline).
        wanted = {(b["kind"], b["frame"]) for b in (page or {}).get("boxes", []) if b["kind"] in kinds}
        while True:
            detections = {}
            with open(detections_path, encoding="utf-8") as lines:
                for line in lines:
                    if not line.strip():
                        continue
                    record = json.loads(line)
                    kind = record.get("type") if record.get("kind") in ("code", "face_enter") else record.get("kind")
                    if kind in kinds and "pixel_bounds" in record:
                        detections.setdefault((kind, record["frame"]), []).append(record)
            if wanted <= detections.keys() or time.time() > deadline:
                break
            time.sleep(0.25)
        report = {"url": url, "page": page, "checks": {}}
        ok = page is not None and page["picture"]["loaded"]
        if page:
            # The boxes' layer lies exactly on the picture, whatever the rest of the page does.
            misfit = max(abs(page["overlay"][k] - page["picture"][k]) for k in ("left", "top", "width", "height"))
            report["checks"]["overlay_px"] = round(misfit, 2)
            ok = ok and misfit <= 1
        for kind in kinds:
            boxes = [b for b in (page or {}).get("boxes", []) if b["kind"] == kind]
            if not boxes:
                report["checks"][kind] = "no box on the page"
                ok = False
                continue
            best = None
            for box in boxes:
                for detection in detections.get((kind, box["frame"]), []):
                    picture = page["picture"]
                    sx = picture["width"] / detection["image"]["width"]
                    sy = picture["height"] / detection["image"]["height"]
                    bounds = detection["pixel_bounds"]
                    expected = {"left": picture["left"] + bounds["x"] * sx, "top": picture["top"] + bounds["y"] * sy,
                                "width": bounds["width"] * sx, "height": bounds["height"] * sy}
                    error = max(abs(box[k] - expected[k]) for k in expected)
                    if best is None or error < best[0]:
                        best = (error, expected, box["frame"])
            if best is None:
                report["checks"][kind] = "no detection line for the frame of the box on the page"
                ok = False
                continue
            tolerance = 0.02 * page["picture"]["width"]
            report["checks"][kind] = {"frame": best[2], "expected": best[1], "error_px": round(best[0], 2),
                                      "tolerance_px": round(tolerance, 2)}
            ok = ok and best[0] <= tolerance
        conclude(browser, report, ok, screenshot)
    finally:
        browser.close()


if __name__ == "__main__":
    main()
