#!/usr/bin/python3
"""Opens docs/kiosk-page.html in headless Chromium from another origin than Lookout's and checks
that it shows the code read from Lookout's event stream; then opens the same page from an origin
Lookout was not told to allow and checks that the stream is refused to it.

usage: check-kiosk-page.py PAGE_DIR PORT LOOKOUT_BASE EXPECTED_VALUE [--token TOKEN] [--screenshot PNG] [--timeout SECONDS]

Serves PAGE_DIR on 127.0.0.1:PORT (a second web server, as a kiosk's would be). The page is opened
as http://localhost:PORT/kiosk-page.html (the origin Lookout must allow), with Lookout's address
and the token after '#'. Once the page is connected it prints the line `connected` (the caller then
plays the codes to Lookout) and waits for EXPECTED_VALUE to be the code shown, with its time. Then
http://127.0.0.1:PORT/kiosk-page.html (another origin: another host name) must end up refused,
showing no code. Prints one JSON line with what it found; exits 0 when both hold.
Needs chromium and python3-websocket (Debian packages)."""
import functools
import http.server
import importlib.util
import json
import os
import sys
import threading
import time
import urllib.parse

spec = importlib.util.spec_from_file_location("check_web_view", os.path.join(os.path.dirname(__file__), "check-web-view.py"))
check_web_view = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_web_view)

# What the page shows: its connection state, the code, its time, and the codes listed under it.
READ_PAGE = """(() => {
  const code = document.getElementById("code"), when = document.getElementById("when");
  if (!code || !when) return "null";
  return JSON.stringify({
    state: document.body.dataset.state, status: document.getElementById("status").textContent,
    code: code.dataset.value ?? null, shown: code.textContent, time: when.dataset.time ?? null, when: when.textContent,
    history: [...document.querySelectorAll("#history li")].map((li) => li.textContent)});
})()"""


def serve(directory, port):
    """A plain static web server for the page, in a thread; quiet."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Quiet, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def watch(browser, url, deadline, done):
    """Loads `url` (None: stays on the page) and reads the page at each of its changes until
    `done(page)` or `deadline`: the last page read, and whether `done` held."""
    if url:
        browser.call("Page.enable")
        browser.call("Page.navigate", url=url)
    page = None
    while time.time() < deadline:
        if browser.evaluate("document.readyState") == "complete":
            page = json.loads(browser.evaluate(READ_PAGE) or "null")
            if page and done(page):
                return page, True
        # The page's next change (its state, a code), bounded so that a still page is read again.
        browser.evaluate(check_web_view.NEXT_CHANGE)
    return page, False


def main():
    args, screenshot, timeout = check_web_view.options(sys.argv[1:])
    token = None
    if "--token" in args:
        i = args.index("--token")
        token = args[i + 1]
        del args[i:i + 2]
    directory, port, base, expected = args[0], int(args[1]), args[2], args[3]
    settings = {"server": base}
    if token:
        settings["token"] = token
    fragment = urllib.parse.urlencode(settings, quote_via=urllib.parse.quote)
    allowed_url = f"http://localhost:{port}/kiosk-page.html#{fragment}"
    foreign_url = f"http://127.0.0.1:{port}/kiosk-page.html#{fragment}"

    server = serve(directory, port)
    browser = check_web_view.Browser()
    try:
        deadline = time.time() + timeout
        report = {"allowed": {"url": allowed_url}, "foreign": {"url": foreign_url}}
        page, connected = watch(browser, allowed_url, deadline, lambda p: p["state"] == "connected")
        report["allowed"]["connected"] = connected
        if connected:
            print("connected", flush=True)
        page, shown = watch(browser, None, deadline, lambda p: p["code"] == expected and bool(p["when"]))
        report["allowed"].update(page=page, shown=shown)
        if screenshot:
            # The page showing its code (the foreign one that follows shows none).
            shot = browser.call("Page.captureScreenshot", format="png")
            with open(screenshot, "wb") as out:
                out.write(check_web_view.base64.b64decode(shot["data"]))
        # The same page from an origin Lookout does not allow: the stream is refused (the page
        # gives up on it), and no code reaches it.
        foreign, refused = watch(browser, foreign_url, time.time() + timeout, lambda p: p["state"] == "closed")
        report["foreign"].update(page=foreign, refused=refused and foreign["code"] is None)
        check_web_view.conclude(browser, report, connected and shown and report["foreign"]["refused"], None)
    finally:
        browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
