// Waymark's demo page: a list of the demo provider's trips, and one rider's journey drawn as SVG
// from the journey stream (Server-Sent Events). Plain JavaScript, nothing loaded from elsewhere.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const params = new URLSearchParams(location.search);
const tripId = params.get("trip");
const defaults = {
  polylines: {
    ACTIVE_ROUTE: { color: "#2F6FEB", width: 6, visible: true, trafficEnabled: false, trafficColors: {} },
    REMAINING_ROUTE: { color: "#8BA8E0", width: 4, visible: true, trafficEnabled: false, trafficColors: {} },
  },
  trafficColors: { NORMAL: null, SLOW: "#F5A623", TRAFFIC_JAM: "#D0021B", NO_DATA: null },
  markers: {
    TRIP_PICKUP_POINT: { color: "#1E9E5A", glyph: "P", zIndex: 5 },
    INTERMEDIATE_DESTINATION: { color: "#E08A00", glyph: "", zIndex: 3 },
    TRIP_DROPOFF_POINT: { color: "#C7362B", glyph: "D", zIndex: 4 },
    TRIP_VEHICLE: { color: "#1D2330", glyph: "", zIndex: 10 },
  },
};

const state = { view: null, style: { polylines: {}, markers: {} }, city: null, frame: null, provider: "demo", token: null };

function $(id) { return document.getElementById(id); }
function el(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// Encoded polyline (precision 5), as Google's format defines it.
function decodePolyline(text) {
  const points = [];
  let index = 0, lat = 0, lng = 0;
  while (index < text.length) {
    for (const which of [0, 1]) {
      let shift = 0, result = 0, byte;
      do { byte = text.charCodeAt(index++) - 63; result |= (byte & 0x1f) << shift; shift += 5; } while (byte >= 0x20);
      const delta = (result & 1) ? ~(result >> 1) : (result >> 1);
      if (which === 0) lat += delta; else lng += delta;
    }
    points.push([lat / 1e5, lng / 1e5]);
  }
  return points;
}

// A flat projection of the city's bounding box (or the view's points) onto the 1000-wide viewBox.
function makeFrame(points) {
  let minLat = Infinity, maxLat = -Infinity, minLng = Infinity, maxLng = -Infinity;
  for (const [lat, lng] of points) { minLat = Math.min(minLat, lat); maxLat = Math.max(maxLat, lat); minLng = Math.min(minLng, lng); maxLng = Math.max(maxLng, lng); }
  const kx = Math.cos((minLat + maxLat) / 2 * Math.PI / 180);
  const width = Math.max((maxLng - minLng) * kx, 1e-6), height = Math.max(maxLat - minLat, 1e-6);
  const scale = 940 / Math.max(width, height * 1.25);
  const viewHeight = Math.round(height * scale + 60);
  $("map").setAttribute("viewBox", `0 0 1000 ${viewHeight}`);
  return { project: ([lat, lng]) => [30 + (lng - minLng) * kx * scale, 30 + (maxLat - lat) * scale], scale };
}

function pointsAttribute(points) { return points.map(p => state.frame.project(p).map(v => v.toFixed(1)).join(",")).join(" "); }

function drawStreets() {
  const group = $("streets");
  group.textContent = "";
  if (!state.city) return;
  for (const [a, b, , kind] of state.city.streets) {
    const [x1, y1] = state.frame.project(state.city.nodes[a]);
    const [x2, y2] = state.frame.project(state.city.nodes[b]);
    el("line", { x1, y1, x2, y2, class: `street kind-${kind}`, "stroke-width": [5, 8, 11][kind] }, group);
  }
}

function polylineStyle(type) {
  const base = defaults.polylines[type] || defaults.polylines.ACTIVE_ROUTE;
  return Object.assign({}, base, state.style.polylines[type] || {});
}
function markerStyle(type) { return Object.assign({}, defaults.markers[type], state.style.markers[type] || {}); }

function drawRoutes(view) {
  const group = $("routes");
  group.textContent = "";
  // REMAINING_ROUTE below ACTIVE_ROUTE.
  const order = { REMAINING_ROUTE: 0, ACTIVE_ROUTE: 1 };
  const lines = (view.polylines || []).slice().sort((a, b) => (order[a.type] ?? 2) - (order[b.type] ?? 2));
  for (const line of lines) {
    const style = polylineStyle(line.type);
    const points = line.encodedPath ? decodePolyline(line.encodedPath) : [];
    const shown = line.visible && style.visible !== false && points.length > 1;
    const width = (style.width || 5) * 1.4;
    const path = el("polyline", {
      class: "route", "data-type": line.type, "data-points": points.length, "data-visible": shown,
      points: pointsAttribute(points), stroke: style.color || "#2F6FEB", "stroke-width": width, opacity: shown ? 1 : 0,
    }, group);
    path.appendChild(document.createTextNode(""));
    if (shown && style.trafficEnabled) {
      const colors = Object.assign({}, defaults.trafficColors, style.trafficColors || {});
      for (const interval of line.trafficIntervals || []) {
        const color = colors[interval.speed];
        if (!color) continue;
        el("polyline", {
          class: "route traffic", "data-speed": interval.speed, stroke: color, "stroke-width": width,
          points: pointsAttribute(points.slice(interval.startIndex, interval.endIndex + 1)),
        }, group);
      }
    }
  }
}

function etaText(time) {
  if (!time) return "–";
  const seconds = (new Date(time) - Date.now()) / 1000;
  if (seconds < 15) return "now";
  return seconds < 60 ? "under a minute" : `${Math.round(seconds / 60)} min`;
}
function distanceText(meters) {
  if (meters == null) return "–";
  return meters >= 1000 ? `${(meters / 1000).toFixed(1)} km` : `${Math.round(meters / 10) * 10} m`;
}

function drawMarkers(view) {
  const group = $("markers");
  group.textContent = "";
  const markers = (view.markers || []).slice().sort((a, b) => (markerStyle(a.type).zIndex || 0) - (markerStyle(b.type).zIndex || 0));
  for (const marker of markers) {
    const style = markerStyle(marker.type);
    if (!marker.position) continue;
    const shown = marker.visible && style.visible !== false;
    const [x, y] = state.frame.project([marker.position.latitude, marker.position.longitude]);
    const g = el("g", {
      class: "marker", "data-type": marker.type, "data-index": marker.index ?? "", "data-visible": shown,
      "data-x": x.toFixed(1), "data-y": y.toFixed(1), opacity: shown ? 1 : 0,
    }, group);
    if (marker.type === "TRIP_VEHICLE") {
      const heading = marker.heading || 0;
      g.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)}) rotate(${heading})`);
      g.setAttribute("data-heading", heading);
      el("circle", { r: 17, fill: "#fff", stroke: style.color, "stroke-width": 3 }, g);
      el("path", { d: "M0,-13 L9,10 L0,5 L-9,10 Z", fill: style.color }, g);
      continue;
    }
    g.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
    if (marker.type === "TRIP_DROPOFF_POINT") el("rect", { x: -13, y: -13, width: 26, height: 26, rx: 4, fill: style.color }, g);
    else el("circle", { r: marker.type === "INTERMEDIATE_DESTINATION" ? 12 : 14, fill: style.color }, g);
    const glyph = el("text", { class: "marker-glyph" }, g);
    glyph.textContent = marker.type === "INTERMEDIATE_DESTINATION" ? String((marker.index ?? 0) + 1) : style.glyph;
    if (marker.type === "TRIP_PICKUP_POINT") {
      const label = el("text", { class: "marker-label eta-label", x: 20, y: 7, "data-eta": marker.eta || "" }, g);
      label.textContent = marker.eta ? etaText(marker.eta) : "";
    }
  }
}

// The pickup label says "in N min": refreshed every minute even when no new view arrives.
function refreshEtaLabels() {
  state.etaRefreshes = (state.etaRefreshes || 0) + 1;
  for (const label of document.querySelectorAll(".eta-label")) {
    const eta = label.getAttribute("data-eta");
    label.textContent = eta ? etaText(eta) : "";
  }
  if (state.view) renderPanel(state.view);
}

const stopNames = { TRIP_PICKUP_POINT: "Pickup", INTERMEDIATE_DESTINATION: "Stop", TRIP_DROPOFF_POINT: "Dropoff" };
function renderPanel(view) {
  $("status").textContent = (view.tripStatus || "").replaceAll("_", " ").toLowerCase();
  const next = view.nextStop;
  $("next-label").textContent = next ? `${stopNames[next.type] || "Next stop"}${next.type === "INTERMEDIATE_DESTINATION" ? " " + (next.index + 1) : ""} in` : "Next stop";
  $("next-eta").textContent = next ? etaText(next.eta) : "–";
  $("next-distance").textContent = next ? distanceText(next.remainingDistanceMeters) : "–";
  $("dropoff-eta").textContent = view.dropoffEta ? `${etaText(view.dropoffEta)} (${distanceText(view.remainingDistanceToDropoffMeters)})` : "–";
  $("version").textContent = view.version;
}

function render(view) {
  state.view = view;
  if (!state.frame) {
    const points = [];
    for (const m of view.markers || []) if (m.position) points.push([m.position.latitude, m.position.longitude]);
    for (const l of view.polylines || []) if (l.encodedPath) points.push(...decodePolyline(l.encodedPath));
    if (points.length < 2) return renderPanel(view);
    state.frame = makeFrame(points);
  }
  drawRoutes(view);
  drawMarkers(view);
  renderPanel(view);
  document.body.setAttribute("data-view-version", view.version);
}

async function fetchJSON(url, token) {
  const response = await fetch(url, token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  if (!response.ok) { const error = new Error(`${response.status} ${url}`); error.status = response.status; throw error; }
  return response.json();
}

async function loadStyle(provider, token) {
  try {
    const style = await fetchJSON(`/v1/providers/${encodeURIComponent(provider)}/journeyStyle`, token);
    state.style = { polylines: style.polylines || {}, markers: style.markers || {}, version: style.version };
  } catch (error) { /* a share link may not read the style: defaults */ }
}

function openStream(provider, trip, token) {
  const url = `/v1/providers/${encodeURIComponent(provider)}/trips/${encodeURIComponent(trip)}/journey:stream?access_token=${encodeURIComponent(token)}`;
  const source = new EventSource(url);
  state.source = source;
  source.onopen = () => { $("stream-state").textContent = "live: updated by the journey stream"; };
  source.onmessage = async (event) => {
    const view = JSON.parse(event.data);
    if (state.style.version !== undefined && view.styleVersion !== undefined && view.styleVersion !== state.style.version) await loadStyle(provider, token);
    render(view);
  };
  source.addEventListener("end", (event) => {
    const reason = JSON.parse(event.data).reason;
    $("stream-state").textContent = `stream ended: ${reason.replaceAll("_", " ").toLowerCase()}`;
    source.close();
  });
  source.addEventListener("shutdown", () => { $("stream-state").textContent = "server restarting: reconnecting…"; });
  source.onerror = () => { if (source.readyState !== EventSource.CLOSED) $("stream-state").textContent = "reconnecting…"; };
}

// The driver's dashboard, shown only when the server offers the driver feed.
async function pollDriverFeed(provider, vehicle, token) {
  const url = `/v1/providers/${encodeURIComponent(provider)}/vehicles/${encodeURIComponent(vehicle)}/driverFeed`;
  try {
    const feed = await fetchJSON(url, token);
    $("driver").hidden = false;
    $("driver-vehicle").textContent = vehicle;
    const step = feed.currentStep || feed.step || feed;
    const maneuver = step.maneuver || feed.maneuver || "";
    // The feed's step says `instruction` (DriverFeedProjection's document).
    const instruction = step.instruction || "";
    $("maneuver").textContent = `${maneuver.replaceAll("_", " ").toLowerCase()}${instruction ? " · " + instruction : ""}`;
    $("maneuver").dataset.instruction = instruction;
    const distance = step.distanceMeters ?? feed.distanceMeters ?? feed.distanceToManeuverMeters;
    const seconds = step.durationSeconds ?? feed.durationSeconds ?? feed.timeToManeuverSeconds;
    $("driver-detail").textContent = [distance != null ? `in ${distanceText(distance)}` : "", seconds != null ? `${Math.round(seconds)} s` : ""].filter(Boolean).join(" · ");
    const messages = $("driver-messages");
    messages.textContent = "";
    for (const message of feed.messages || feed.statusMessages || []) {
      const li = document.createElement("li");
      li.textContent = typeof message === "string" ? message : (message.text || JSON.stringify(message));
      messages.appendChild(li);
    }
    setTimeout(() => pollDriverFeed(provider, vehicle, token), 2000);
  } catch (error) {
    $("driver").hidden = true;
    // Not offered by this server (404), or not now: look again in a minute.
    setTimeout(() => pollDriverFeed(provider, vehicle, token), error.status === 404 ? 60000 : 5000);
  }
}

async function showTrip() {
  $("trip").hidden = false;
  $("trip-title").textContent = `Trip ${tripId}`;
  const fragment = new URLSearchParams(location.hash.slice(1));
  let token = fragment.get("access_token");
  let provider = params.get("provider") || "demo";
  let driver = null;
  if (!token) {
    try {
      const minted = await fetchJSON(`/demo/token?trip=${encodeURIComponent(tripId)}`);
      token = minted.token; provider = minted.provider;
      if (minted.driverToken) driver = { vehicle: minted.vehicleId, token: minted.driverToken };
    } catch (error) {
      $("status").textContent = error.status === 404 ? "no such trip" : `cannot get a token (${error.message})`;
      return;
    }
  }
  state.provider = provider;
  try {
    state.city = await fetchJSON("/demo/city.json");
    state.frame = makeFrame(state.city.nodes);
    drawStreets();
  } catch (error) { /* no city: the frame comes from the view */ }
  await loadStyle(provider, token);
  openStream(provider, tripId, token);
  // Once a minute; the browser test sets window.etaRefreshMs before the page loads to watch it work.
  setInterval(refreshEtaLabels, window.etaRefreshMs || 60000);
  if (driver) pollDriverFeed(provider, driver.vehicle, driver.token);
}

async function showList() {
  $("list").hidden = false;
  try {
    const listed = await fetchJSON("/demo/trips");
    const list = $("trips");
    list.textContent = "";
    for (const trip of listed.trips) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/demo?trip=${encodeURIComponent(trip.tripId)}`;
      a.textContent = trip.tripId;
      const status = document.createElement("span");
      status.className = "status";
      status.textContent = `${(trip.tripStatus || "").replaceAll("_", " ").toLowerCase()}${trip.tripType === "SHARED" ? " · shared" : ""}${trip.vehicleId ? " · " + trip.vehicleId : ""}`;
      li.append(a, status);
      list.appendChild(li);
    }
    $("empty").hidden = listed.trips.length > 0;
  } catch (error) {
    $("empty").hidden = false;
  }
  setTimeout(showList, 3000);
}

if (tripId) showTrip(); else showList();
