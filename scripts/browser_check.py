#!/usr/bin/env python3
"""Loads the demo page for one trip in headless Chromium and checks what it drew.

Talks to Chromium over the DevTools protocol on a pipe (--remote-debugging-pipe: fds 3 and 4,
NUL-terminated JSON), so nothing beyond Python's standard library and Debian's chromium is needed.
Takes screenshots a few seconds apart, and checks from the page's DOM that the SVG holds the
ACTIVE_ROUTE polyline (and REMAINING_ROUTE when the server plans routes), a marker for every
marker of the journey view (pickup, intermediate stops, dropoff, vehicle), the street grid, and
that the vehicle marker moved between the shots. Then that the driver's dashboard shows the
feed's step `instruction` (when the feed has one), and that the pickup ETA label is refreshed by
the page's timer with no new view arriving (the page's once-a-minute interval is shortened to
1.5 s for the test through `window.etaRefreshMs`).

usage: browser_check.py BASE_URL OUT_DIR [--require-remaining]
"""
import base64
import json
import os
import subprocess
import sys
import time
import urllib.request

base, out = sys.argv[1].rstrip("/"), sys.argv[2]
require_remaining = "--require-remaining" in sys.argv
os.makedirs(out, exist_ok=True)


def fail(message):
    print(f"browser test FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def pick_trip(deadline):
    """The trip whose car is farthest from its pickup (at least 700 m), so it moves while we watch."""
    while time.time() < deadline:
        trips = json.load(urllib.request.urlopen(f"{base}/demo/trips"))["trips"]
        best, best_distance = None, 0
        for trip in trips:
            if trip.get("tripStatus") != "ENROUTE_TO_PICKUP":
                continue
            minted = json.load(urllib.request.urlopen(f"{base}/demo/token?trip={trip['tripId']}"))
            request = urllib.request.Request(f"{base}/v1/providers/demo/trips/{trip['tripId']}/journey",
                                             headers={"Authorization": f"Bearer {minted['token']}"})
            view = json.load(urllib.request.urlopen(request))
            distance = (view.get("nextStop") or {}).get("remainingDistanceMeters") or 0
            lines = {line["type"] for line in view.get("polylines", []) if line.get("visible")}
            if distance > max(700, best_distance) and "ACTIVE_ROUTE" in lines and (not require_remaining or "REMAINING_ROUTE" in lines):
                best, best_distance = trip["tripId"], distance
        if best:
            return best
        time.sleep(1)
    fail("no trip under way with its car far enough from the pickup")


class Chromium:
    def __init__(self):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def wire():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
            os.set_inheritable(3, True)  # dup2 onto the same number keeps close-on-exec
            os.set_inheritable(4, True)

        binary = os.environ.get("CHROMIUM", "chromium")
        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
             "--no-first-run", "--remote-debugging-pipe", "--window-size=1280,860", "about:blank"],
            # dup2 makes 3 and 4 inheritable; every other pipe end is non-inheritable and closes at exec.
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.session = None

    def call(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    fail("chromium closed the DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    fail(f"{method}: {answer['error']}")
                return answer["result"]

    def open(self, url, before_load=None):
        target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        self.call("Page.enable")
        if before_load:
            self.call("Page.addScriptToEvaluateOnNewDocument", {"source": before_load})
        self.call("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 860, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as file:
            file.write(base64.b64decode(data))

    def close(self):
        self.process.kill()
        self.process.wait()


PROBE = """(() => {
  const q = s => document.querySelector(s), all = s => Array.from(document.querySelectorAll(s));
  const vehicle = q('#markers g.marker[data-type="TRIP_VEHICLE"]');
  const view = (typeof state !== "undefined" && state.view) || null;
  return {
    version: document.body.dataset.viewVersion || null,
    status: q('#status').textContent,
    streets: all('#streets line').length,
    polylines: all('#routes polyline.route:not(.traffic)').map(p => ({type: p.dataset.type, points: +p.dataset.points, visible: p.dataset.visible === "true"})),
    traffic: all('#routes polyline.traffic').length,
    markers: all('#markers g.marker').map(m => ({type: m.dataset.type, index: m.dataset.index, visible: m.dataset.visible === "true"})),
    expectedMarkers: view ? view.markers.filter(m => m.position).map(m => m.type + ":" + (m.index ?? "")) : [],
    expectedLines: view ? view.polylines.filter(l => l.visible).map(l => l.type) : [],
    vehicle: vehicle ? [vehicle.dataset.x, vehicle.dataset.y, vehicle.dataset.heading] : null,
    nextEta: q('#next-eta').textContent, distance: q('#next-distance').textContent,
  };
})()"""

deadline = time.time() + 180
trip = pick_trip(deadline)
print(f"browser test: trip {trip}")
chrome = Chromium()
try:
    chrome.open(f"{base}/demo?trip={trip}", before_load="window.etaRefreshMs = 1500;")
    shots = []
    first = None
    while time.time() < deadline:
        time.sleep(1)
        probe = chrome.evaluate(PROBE)
        if probe and probe["version"] and probe["vehicle"] and probe["polylines"]:
            first = probe
            break
    if not first:
        fail(f"the page drew no journey within the time allowed: {chrome.evaluate(PROBE)}")
    chrome.screenshot(os.path.join(out, "demo-1.png"))
    shots.append(first)
    moved = None
    for shot in range(2, 6):
        time.sleep(4)
        probe = chrome.evaluate(PROBE)
        chrome.screenshot(os.path.join(out, f"demo-{shot}.png"))
        shots.append(probe)
        if probe["vehicle"] and probe["vehicle"][:2] != first["vehicle"][:2]:
            moved = probe
            break
    print(json.dumps(shots[-1], indent=1))
    last = shots[-1]
    problems = []
    if last["streets"] < 100:
        problems.append(f"the street grid has {last['streets']} lines")
    drawn = {p["type"]: p for p in last["polylines"]}
    if not drawn.get("ACTIVE_ROUTE", {}).get("visible") or drawn["ACTIVE_ROUTE"]["points"] < 2:
        problems.append(f"no visible ACTIVE_ROUTE polyline: {last['polylines']}")
    if require_remaining and (not drawn.get("REMAINING_ROUTE", {}).get("visible") or drawn["REMAINING_ROUTE"]["points"] < 2):
        problems.append(f"no visible REMAINING_ROUTE polyline: {last['polylines']}")
    for line in last["expectedLines"]:
        if not drawn.get(line, {}).get("visible"):
            problems.append(f"the view has a visible {line} the SVG does not show")
    drawn_markers = sorted(m["type"] + ":" + (m["index"] or "") for m in last["markers"])
    if drawn_markers != sorted(last["expectedMarkers"]):
        problems.append(f"markers drawn {drawn_markers} differ from the view's {sorted(last['expectedMarkers'])}")
    for needed in ["TRIP_PICKUP_POINT", "TRIP_DROPOFF_POINT", "TRIP_VEHICLE"]:
        if not any(m["type"] == needed and m["visible"] for m in last["markers"]):
            problems.append(f"no visible {needed} marker")
    if not moved:
        problems.append(f"the vehicle marker did not move: {[s['vehicle'] for s in shots]}")
    if last["nextEta"] in ("", "–") or last["distance"] in ("", "–"):
        problems.append(f"no next-stop ETA or distance shown: {last['nextEta']!r} {last['distance']!r}")

    # The driver's dashboard shows the feed's step instruction (the feed says `instruction`).
    minted = json.load(urllib.request.urlopen(f"{base}/demo/token?trip={trip}"))
    if minted.get("driverToken"):
        request = urllib.request.Request(f"{base}/v1/providers/demo/vehicles/{minted['vehicleId']}/driverFeed",
                                         headers={"Authorization": f"Bearer {minted['driverToken']}"})
        feed = json.load(urllib.request.urlopen(request))
        if (feed.get("currentStep") or {}).get("instruction"):
            shown = ""
            for _ in range(10):
                # The visible text, not just the attribute: "turn left · Turn left onto Church Road".
                shown = chrome.evaluate("""(() => { const m = document.querySelector('#maneuver');
                  const i = m.dataset.instruction || ''; return i && m.textContent.endsWith(' · ' + i) ? i : ''; })()""")
                if shown:
                    break
                time.sleep(1)
            if not shown:
                problems.append(f"the driver dashboard shows no instruction while the feed has {feed['currentStep']['instruction']!r}")
            else:
                print(f"browser test: driver dashboard instruction {shown!r}")
        elif require_remaining:
            problems.append(f"the server plans routes but the driver feed has no current step instruction: {feed}")

    # The pickup ETA label is refreshed by the timer alone: no view arrives once the stream is closed.
    refreshed = chrome.call("Runtime.evaluate", {"expression": """(async () => {
      state.source.close();
      const label = document.querySelector('.eta-label');
      if (!label) return {error: "no pickup ETA label"};
      label.setAttribute('data-eta', new Date(Date.now() + 5 * 60000 + 20000).toISOString());
      label.textContent = 'stale text';
      const before = state.etaRefreshes || 0;
      await new Promise(resolve => setTimeout(resolve, 3500));
      return {text: label.textContent, refreshes: (state.etaRefreshes || 0) - before};
    })()""", "awaitPromise": True, "returnByValue": True})["result"].get("value") or {}
    if refreshed.get("error"):
        problems.append(refreshed["error"])
    elif refreshed.get("refreshes", 0) < 1 or refreshed.get("text") != "5 min":
        problems.append(f"the ETA label was not refreshed by the timer: {refreshed}")
    else:
        print(f"browser test: ETA label refreshed by the timer {refreshed['refreshes']} times to {refreshed['text']!r}")
    if problems:
        fail("; ".join(problems))
    print(f"browser test passed: {len(shots)} screenshots in {out}, vehicle moved from {first['vehicle'][:2]} to {moved['vehicle'][:2]}")
finally:
    chrome.close()
