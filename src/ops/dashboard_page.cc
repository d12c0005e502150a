#include "ops/dashboard_page.h"

namespace weir::ops {
namespace {

// Charts are drawn as SVG by the inline script. Every chart carries data-chart (its kind) and
// data-points (how many samples it draws) so tests can check what a browser rendered.
constexpr std::string_view kPage = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>weir: streaming flows</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #f6f7f9; }
header { background: #1f2937; color: #fff; padding: 10px 16px; display: flex; gap: 16px; align-items: baseline; }
header h1 { font-size: 16px; margin: 0; }
#status { font-weight: 600; padding: 2px 8px; border-radius: 4px; }
.healthy { background: #15803d; color: #fff; }
.unhealthy { background: #b91c1c; color: #fff; }
main { padding: 12px 16px; }
section.flow { background: #fff; border: 1px solid #dde1e6; border-radius: 6px; margin-bottom: 16px; padding: 10px 14px; }
section.flow h2 { font-size: 15px; margin: 0 0 6px; }
.reasons { color: #b91c1c; margin: 4px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 10px; }
.chartbox h3 { font-size: 12px; margin: 4px 0; color: #444; font-weight: 600; }
svg.chart { width: 100%; height: 170px; background: #fcfcfd; border: 1px solid #eceef1; }
.legend span { display: inline-block; margin-right: 10px; font-size: 11px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 3px; vertical-align: -1px; }
table { border-collapse: collapse; margin: 6px 0; }
td, th { border: 1px solid #e3e6ea; padding: 2px 8px; text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f1f3f5; }
td:first-child, th:first-child { text-align: left; }
pre { background: #f4f5f7; padding: 6px; max-height: 220px; overflow: auto; font-size: 11px; }
details summary { cursor: pointer; color: #1d4ed8; }
#updated { color: #cbd5e1; font-size: 12px; }
</style>
</head>
<body>
<header><h1>weir: streaming flows</h1><span id="status">loading</span><span id="updated"></span></header>
<main id="flows"></main>
<script>
"use strict";
const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04",
                "#db2777", "#4b5563", "#65a30d"];
const SVG = "http://www.w3.org/2000/svg";
const W = 600, H = 170, L = 58, R = 10, T = 10, B = 22;

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmt(v) {
  if (v === null || v === undefined || !isFinite(v)) return "-";
  const a = Math.abs(v);
  if (a >= 1e9) return (v / 1e9).toFixed(1) + "G";
  if (a >= 1e6) return (v / 1e6).toFixed(1) + "M";
  if (a >= 1e4) return (v / 1e3).toFixed(1) + "k";
  if (a >= 100 || v === Math.round(v)) return String(Math.round(v));
  return v.toFixed(2);
}
function clock(ms) { return new Date(ms).toISOString().substring(11, 19); }

// series: [{name, values}] aligned with t; kind "line" or "stack" (stacked bars per batch).
function chart(kind, dataKind, title, unit, t, series) {
  const box = el("div", {class: "chartbox"});
  box.appendChild(el("h3", {}, title + (unit ? " (" + unit + ")" : "")));
  const svg = svgEl("svg", {class: "chart", "data-chart": dataKind, viewBox: "0 0 " + W + " " + H,
                             preserveAspectRatio: "none"});
  let points = 0;
  const n = t.length;
  const t0 = n ? t[0] : 0, t1 = n ? t[n - 1] : 1;
  const span = Math.max(t1 - t0, 1);
  const x = (ms) => L + (W - L - R) * (n > 1 ? (ms - t0) / span : 0.5);
  let max = 0;
  if (kind === "stack") {
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (const s of series) sum += s.values[i] || 0;
      max = Math.max(max, sum);
    }
  } else {
    for (const s of series) for (const v of s.values) if (v !== null && isFinite(v)) max = Math.max(max, v);
  }
  if (max <= 0) max = 1;
  const y = (v) => T + (H - T - B) * (1 - v / max);
  svg.appendChild(svgEl("line", {x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: "#9ca3af"}));
  svg.appendChild(svgEl("line", {x1: L, y1: T, x2: L, y2: H - B, stroke: "#9ca3af"}));
  for (const f of [0, 0.5, 1]) {
    const v = max * f;
    svg.appendChild(svgEl("text", {x: L - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 10,
                                   fill: "#555"}, fmt(v)));
    if (f > 0) svg.appendChild(svgEl("line", {x1: L, y1: y(v), x2: W - R, y2: y(v), stroke: "#eef0f3"}));
  }
  if (n > 0) {
    svg.appendChild(svgEl("text", {x: L, y: H - 6, "font-size": 10, fill: "#555"}, clock(t0)));
    svg.appendChild(svgEl("text", {x: W - R, y: H - 6, "font-size": 10, fill: "#555",
                                   "text-anchor": "end"}, clock(t1)));
  }
  if (kind === "stack") {
    const barW = Math.max(1, (W - L - R) / Math.max(n, 1) * 0.8);
    for (let i = 0; i < n; i++) {
      let base = 0;
      series.forEach((s, k) => {
        const v = s.values[i] || 0;
        if (v <= 0) return;
        const rect = svgEl("rect", {x: x(t[i]) - barW / 2, y: y(base + v), width: barW,
                                    height: Math.max(0.5, y(base) - y(base + v)),
                                    fill: COLORS[k % COLORS.length]});
        rect.appendChild(svgEl("title", {}, s.name + ": " + v + " ms"));
        svg.appendChild(rect);
        base += v;
      });
      points++;
    }
  } else {
    series.forEach((s, k) => {
      const pts = [];
      for (let i = 0; i < n; i++) {
        const v = s.values[i];
        if (v === null || v === undefined || !isFinite(v)) continue;
        pts.push(x(t[i]).toFixed(1) + "," + y(v).toFixed(1));
      }
      points += pts.length;
      if (pts.length === 1) {
        const [px, py] = pts[0].split(",");
        svg.appendChild(svgEl("circle", {cx: px, cy: py, r: 2.5, fill: COLORS[k % COLORS.length]}));
      }
      svg.appendChild(svgEl("polyline", {points: pts.join(" "), fill: "none", "stroke-width": 1.6,
                                         stroke: COLORS[k % COLORS.length], "data-series": s.name}));
    });
  }
  svg.setAttribute("data-points", String(points));
  box.appendChild(svg);
  const legend = el("div", {class: "legend"});
  series.forEach((s, k) => {
    const item = el("span");
    item.appendChild(el("i", {style: "background:" + COLORS[k % COLORS.length]}));
    item.appendChild(document.createTextNode(s.name));
    legend.appendChild(item);
  });
  box.appendChild(legend);
  return box;
}

function table(headers, rows) {
  const tb = el("table");
  const head = el("tr");
  for (const h of headers) head.appendChild(el("th", {}, h));
  tb.appendChild(head);
  for (const r of rows) {
    const tr = el("tr");
    for (const c of r) tr.appendChild(el("td", {}, typeof c === "number" ? fmt(c) : String(c)));
    tb.appendChild(tr);
  }
  return tb;
}

function renderFlow(f, windowMs) {
  const sec = el("section", {class: "flow", "data-flow": f.name,
                             "data-healthy": String(f.healthy !== false)});
  const h2 = el("h2", {}, f.name + " ");
  const badge = el("span", {class: f.healthy === false ? "unhealthy" : "healthy", id: ""},
                   f.healthy === false ? "unhealthy" : "healthy");
  badge.style.padding = "1px 6px"; badge.style.borderRadius = "4px"; badge.style.fontSize = "11px";
  h2.appendChild(badge);
  sec.appendChild(h2);
  for (const r of f.reasons || []) sec.appendChild(el("div", {class: "reasons"}, r));
  const h = f.history;
  const charts = el("div", {class: "charts"});
  charts.appendChild(chart("line", "rate", "Input vs processing rate", "rows/s", h.t, [
    {name: "inputRowsPerSecond", values: h.inputRowsPerSecond},
    {name: "processedRowsPerSecond", values: h.processedRowsPerSecond}]));
  const parts = Object.keys(h.durationMs).map((p) => ({name: p, values: h.durationMs[p]}));
  charts.appendChild(chart("stack", "duration", "Batch duration by part (durationMs)", "ms", h.t, parts));
  const lag = Object.keys(h.partitionOffsetsBehind).map((p) => ({name: p, values: h.partitionOffsetsBehind[p]}));
  if (lag.length === 0) lag.push({name: "total", values: h.offsetsBehind});
  charts.appendChild(chart("line", "lag", "Offsets behind latest per partition", "offsets", h.t, lag));
  charts.appendChild(chart("line", "time-behind", "Time behind (oldest unprocessed event)", "s", h.t,
                           [{name: "time behind", values: h.timeBehindMs.map((v) => v / 1000)}]));
  sec.appendChild(charts);
  const tot = f.totals;
  sec.appendChild(table(["batches", "input rows", "output rows", "files", "dropped (expectations)",
                         "quarantined", "duplicates", "late rows", "data-loss events",
                         "time behind (s)", "arrival rows/s (window)", "committed rows/s (window)"],
                        [[tot.batches, tot.inputRows, tot.outputRows, tot.filesWritten,
                          tot.droppedByExpectations, tot.quarantined, tot.duplicatesDropped,
                          tot.lateRowsDropped, tot.dataLossEvents, f.timeBehindMs / 1000,
                          f.arrivalRowsPerSecond || 0, f.committedRowsPerSecond || 0]]));
  if (f.expectations.length > 0) {
    const ex = table(["expectation", "passed", "failed"],
                     f.expectations.map((e) => [e.name, e.passed, e.failed]));
    ex.setAttribute("data-table", "expectations");
    sec.appendChild(ex);
  }
  const recent = f.recentProgress.slice().reverse();
  const batches = table(["batch", "timestamp", "input rows", "duration (ms)", "input rows/s",
                         "processed rows/s", "output rows"],
                        recent.map((p) => [String(p.batchId), p.timestamp, p.numInputRows, p.batchDuration,
                                           p.inputRowsPerSecond, p.processedRowsPerSecond,
                                           p.sink ? p.sink.numOutputRows : "-"]));
  batches.setAttribute("data-table", "batches");
  sec.appendChild(batches);
  const details = el("details", {"data-table": "progress"});
  details.appendChild(el("summary", {}, "Latest progress records (" + recent.length + ", JSON)"));
  for (const p of recent) details.appendChild(el("pre", {}, JSON.stringify(p, null, 2)));
  sec.appendChild(details);
  return sec;
}

async function refresh() {
  try {
    const response = await fetch("/api/history", {cache: "no-store"});
    const data = await response.json();
    const status = document.getElementById("status");
    status.textContent = data.healthy ? "healthy" : "unhealthy";
    status.className = data.healthy ? "healthy" : "unhealthy";
    document.getElementById("updated").textContent = "updated " + clock(data.now) + " UTC";
    const main = document.getElementById("flows");
    const open = {};  // keeps the JSON sections the user opened open across refreshes
    for (const d of main.querySelectorAll("section.flow details")) {
      open[d.parentElement.getAttribute("data-flow")] = d.open;
    }
    main.replaceChildren(...data.flows.map((f) => {
      const s = renderFlow(f, data.windowMs);
      const d = s.querySelector("details");
      if (d && f.name in open) d.open = open[f.name];
      return s;
    }));
    document.body.setAttribute("data-loaded", "true");
  } catch (e) {
    document.getElementById("status").textContent = "endpoint unreachable";
    document.getElementById("status").className = "unhealthy";
  }
}
refresh();
setInterval(refresh, 2000);
</script>
</body>
</html>
)HTML";

}  // namespace

std::string_view DashboardHtml() { return kPage; }

}  // namespace weir::ops
