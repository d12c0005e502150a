// Checks the dashboard's DOM as headless Chromium dumped it (--dump-dom) after its script ran:
// every expected flow has a section whose rate and lag charts (and the duration and time-behind
// charts) draw at least one sample. Usage: node dashboard_dom.mjs DOM.html FLOW...
// Prints one line per flow with its charts' point counts; exits 1 naming what is missing.
import { readFileSync } from "node:fs";

const [domPath, ...flows] = process.argv.slice(2);
if (!domPath || flows.length === 0) {
  console.error("usage: node dashboard_dom.mjs DOM.html FLOW...");
  process.exit(2);
}
const dom = readFileSync(domPath, "utf8");
const problems = [];
if (!/<body[^>]*data-loaded="true"/.test(dom)) problems.push("the page's script never loaded /api/history");

// Splits the DOM into the flow sections (each starts at <section class="flow" data-flow="...">).
const sections = new Map();
const starts = [...dom.matchAll(/<section class="flow" data-flow="([^"]*)"/g)];
starts.forEach((m, i) => {
  const end = i + 1 < starts.length ? starts[i + 1].index : dom.length;
  sections.set(m[1].replace(/&amp;/g, "&").replace(/&quot;/g, '"'), dom.slice(m.index, end));
});

for (const flow of flows) {
  const section = sections.get(flow);
  if (!section) {
    problems.push(`no section for flow ${flow} (sections: ${[...sections.keys()].join(", ")})`);
    continue;
  }
  const points = {};
  for (const m of section.matchAll(/<svg[^>]*data-chart="([^"]+)"[^>]*data-points="(\d+)"/g)) {
    points[m[1]] = Number(m[2]);
  }
  for (const m of section.matchAll(/<svg[^>]*data-points="(\d+)"[^>]*data-chart="([^"]+)"/g)) {
    points[m[2]] = Number(m[1]);
  }
  for (const chart of ["rate", "lag", "duration", "time-behind"]) {
    if (!(points[chart] > 0)) problems.push(`flow ${flow}: the ${chart} chart draws no points`);
  }
  const polylines = (section.match(/<polyline /g) || []).length;
  if (polylines < 3) problems.push(`flow ${flow}: only ${polylines} chart lines`);
  if (!section.includes('data-table="progress"') || !section.includes("&quot;batchId&quot;") &&
      !section.includes('"batchId"')) {
    problems.push(`flow ${flow}: the latest progress records are missing`);
  }
  console.log(`${flow}: ${JSON.stringify(points)}, ${polylines} lines`);
}
if (problems.length > 0) {
  for (const p of problems) console.error("dashboard: " + p);
  process.exit(1);
}
