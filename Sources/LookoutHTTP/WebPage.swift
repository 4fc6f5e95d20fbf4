/// The web view at `/`: the live picture with the newest codes and faces outlined and labelled
/// over it, presence, the input's status and drops, and the latest events. One self-contained
/// page (no CDN, no fonts fetched): it polls `/api/status` twice a second and shows
/// `/api/stream.mjpeg`. Boxes are SVG elements (`g.box` with `data-type` and `data-label`), in
/// the frame's pixel coordinates, so a test can read them from the DOM; so are the camera's masks
/// (`g.mask`, shaded) and zones (`g.zone` with `data-name`, outlined and named) under them.
enum WebPage {
    static let html = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lookout</title>
<style>
  :root { color-scheme: light dark; --code: #00c850; --face: #ff9600; --zone: #5af; }
  body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: #111; color: #eee; }
  header { display: flex; gap: 1em; align-items: baseline; padding: .5em 1em; background: #222; }
  header h1 { font-size: 1.1em; margin: 0; }
  #presence { padding: .1em .6em; border-radius: 1em; background: #444; }
  #presence.on { background: #2a7; color: #000; }
  #input.lost, #input.stopped { color: #f66; }
  main { display: flex; flex-wrap: wrap; gap: 1em; padding: 1em; }
  #view { position: relative; flex: 1 1 640px; max-width: 1280px; align-self: flex-start; background: #000; }
  #view img { display: block; width: 100%; height: auto; }
  #view svg { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; }
  .box polygon { fill: none; stroke-width: 3; vector-effect: non-scaling-stroke; }
  .box.code polygon { stroke: var(--code); }
  .box.face polygon { stroke: var(--face); }
  .box text { font: bold 22px system-ui, sans-serif; paint-order: stroke; stroke: #000; stroke-width: 4px; }
  .box.code text { fill: var(--code); }
  .box.face text { fill: var(--face); }
  .mask polygon { fill: rgba(0, 0, 0, .6); stroke: #f55; stroke-width: 1; stroke-dasharray: 6 4; vector-effect: non-scaling-stroke; }
  .zone polygon { fill: rgba(90, 170, 255, .08); stroke: var(--zone); stroke-width: 2; vector-effect: non-scaling-stroke; }
  .zone text { fill: var(--zone); font: bold 20px system-ui, sans-serif; paint-order: stroke; stroke: #000; stroke-width: 4px; }
  aside { flex: 0 1 360px; min-width: 280px; }
  table { border-collapse: collapse; width: 100%; margin-bottom: 1em; }
  td { padding: .15em .4em; border-bottom: 1px solid #333; vertical-align: top; }
  td:first-child { color: #aaa; white-space: nowrap; }
  ol { padding-left: 1.2em; margin: 0; font-family: ui-monospace, monospace; font-size: 12px; }
  li { margin-bottom: .3em; word-break: break-all; }
  h2 { font-size: 1em; margin: 0 0 .4em; }
</style>
</head>
<body>
<header><h1>Lookout</h1><select id="camera" hidden aria-label="camera"></select><span id="source"></span><span id="presence">presence off</span><span id="input"></span></header>
<main>
  <div id="view">
    <img id="picture" alt="live picture">
    <svg id="boxes" viewBox="0 0 1280 720" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg"></svg>
  </div>
  <aside>
    <h2>Input</h2>
    <table id="status"></table>
    <h2>Latest events</h2>
    <ol id="events"></ol>
    <h2>Recordings</h2>
    <ol id="recordings"></ol>
  </aside>
</main>
<script>
"use strict";
const svgNS = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);
// The camera shown (?camera=NAME; the server's first by default), passed on to every request.
const camera = new URLSearchParams(location.search).get("camera");
const withCamera = (path, name = camera) => name ? `${path}${path.includes("?") ? "&" : "?"}camera=${encodeURIComponent(name)}` : path;

function showCameras(cameras, current) {
  const select = $("camera");
  select.hidden = cameras.length < 2;
  if (select.hidden || select.options.length === cameras.length) return;
  select.replaceChildren(...cameras.map((c) => {
    const option = document.createElement("option");
    option.value = c.camera;
    option.textContent = c.camera;
    option.selected = c.camera === current;
    return option;
  }));
  select.onchange = () => { location.search = `?camera=${encodeURIComponent(select.value)}`; };
}

function row(name, value) {
  const tr = document.createElement("tr");
  for (const text of [name, value]) {
    const td = document.createElement("td");
    td.textContent = text;
    tr.appendChild(td);
  }
  return tr;
}

// Masks shaded and zones outlined with their names; their points are fractions of the frame.
function drawRegions(svg, masks, zones, width, height) {
  const region = (kind, points) => {
    const g = document.createElementNS(svgNS, "g");
    g.setAttribute("class", kind);
    const polygon = document.createElementNS(svgNS, "polygon");
    polygon.setAttribute("points", points.map(([x, y]) => `${x * width},${y * height}`).join(" "));
    g.appendChild(polygon);
    svg.appendChild(g);
    return g;
  };
  for (const mask of masks) region("mask", mask);
  for (const zone of zones) {
    const g = region("zone", zone.points);
    g.dataset.name = zone.name;
    const text = document.createElementNS(svgNS, "text");
    text.setAttribute("x", Math.min(...zone.points.map((p) => p[0])) * width + 4);
    text.setAttribute("y", Math.min(...zone.points.map((p) => p[1])) * height + 22);
    text.textContent = zone.name;
    g.appendChild(text);
  }
}

function drawBoxes(objects, width, height, masks = [], zones = []) {
  const svg = $("boxes");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  drawRegions(svg, masks, zones, width, height);
  for (const o of objects) {
    const isFace = o.kind === "face";
    const points = isFace
      ? [[o.pixel_bounds.x, o.pixel_bounds.y], [o.pixel_bounds.x + o.pixel_bounds.width, o.pixel_bounds.y],
         [o.pixel_bounds.x + o.pixel_bounds.width, o.pixel_bounds.y + o.pixel_bounds.height],
         [o.pixel_bounds.x, o.pixel_bounds.y + o.pixel_bounds.height]]
      : o.pixel_corners.map((p) => [p.x, p.y]);
    const label = isFace ? `face ${o.face_id}` : `${o.symbology}: ${o.value}`;
    const g = document.createElementNS(svgNS, "g");
    g.setAttribute("class", `box ${isFace ? "face" : "code"}`);
    g.dataset.type = o.kind;
    g.dataset.label = label;
    g.dataset.frame = o.frame;
    g.dataset.x = o.pixel_bounds.x;
    g.dataset.y = o.pixel_bounds.y;
    g.dataset.width = o.pixel_bounds.width;
    g.dataset.height = o.pixel_bounds.height;
    if (o.zone) g.dataset.zone = o.zone;
    const polygon = document.createElementNS(svgNS, "polygon");
    polygon.setAttribute("points", points.map((p) => p.join(",")).join(" "));
    const text = document.createElementNS(svgNS, "text");
    text.setAttribute("x", Math.min(...points.map((p) => p[0])));
    text.setAttribute("y", Math.max(22, Math.min(...points.map((p) => p[1])) - 6));
    text.textContent = label;
    g.append(polygon, text);
    svg.appendChild(g);
  }
}

function show(status) {
  showCameras(status.cameras || [], status.camera);
  $("source").textContent = status.source;
  const on = status.presence === "on";
  $("presence").textContent = `presence ${status.presence}`;
  $("presence").className = on ? "on" : "";
  $("input").textContent = status.input;
  $("input").className = status.input;
  const f = status.format || {};
  const table = $("status");
  table.replaceChildren(
    row("state", status.input),
    row("format", f.width ? `${f.width}x${f.height} ${f.pixel_format}` : "not yet known"),
    row("fps granted", f.fps !== undefined ? String(f.fps) : "-"),
    row("fps measured", String(status.fps_measured)),
    row("frames read", String(status.frames_read)),
    row("frames analysed", String(status.frames_analysed)),
    ...Object.entries(status.dropped).map(([reason, n]) => row(`dropped: ${reason}`, String(n))),
    ...Object.entries(status.detections).map(([type, n]) => row(`found: ${type}`, String(n))));
  const width = (f.width || (status.objects[0] && status.objects[0].image.width)) || 1280;
  const height = (f.height || (status.objects[0] && status.objects[0].image.height)) || 720;
  drawBoxes(status.objects, width, height, status.masks || [], status.zones || []);
  const list = $("events");
  list.replaceChildren(...status.recent_events.slice().reverse().map((e) => {
    const li = document.createElement("li");
    const what = (e.kind === "code" ? `${e.symbology} ${e.value}` : e.kind === "presence" ? `presence ${e.state}`
      : e.kind.startsWith("recording") ? e.file : `face ${e.face_id}`) + (e.zone ? ` in ${e.zone}` : "");
    li.textContent = `${e.time.slice(11, 23)} ${status.cameras && status.cameras.length > 1 ? e.camera + " " : ""}${e.kind}: ${what}`;
    if (e.snapshot) {
      const a = document.createElement("a");
      a.href = withCamera(`/snapshots/${encodeURIComponent(e.snapshot)}`, e.camera);
      a.textContent = " [snapshot]";
      li.appendChild(a);
    }
    return li;
  }));
}

// Recent clips (--record), newest first, each a download link.
async function pollRecordings() {
  try {
    const response = await fetch(withCamera("/api/recordings"), { cache: "no-store" });
    if (response.ok) {
      const { recordings } = await response.json();
      $("recordings").replaceChildren(...recordings.slice(0, 10).map((clip) => {
        const li = document.createElement("li");
        const a = document.createElement("a");
        a.href = clip.url;
        a.textContent = `${clip.file} (${(clip.bytes / 1048576).toFixed(1)} MB)`;
        li.appendChild(a);
        return li;
      }));
    }
  } catch (error) {
    // poll() says when Lookout is not answering.
  }
  setTimeout(pollRecordings, 5000);
}

async function poll() {
  try {
    const response = await fetch(withCamera("/api/status"), { cache: "no-store" });
    if (response.ok) show(await response.json());
  } catch (error) {
    $("input").textContent = "Lookout is not answering";
  }
  setTimeout(poll, 500);
}

// The stream starts after the page has loaded, so the page's load never waits on it.
window.addEventListener("load", () => {
  $("picture").src = withCamera("/api/stream.mjpeg");
  poll();
  pollRecordings();
});
</script>
</body>
</html>
"""#
}
