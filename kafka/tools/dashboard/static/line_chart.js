// A small SVG line chart for kafka-dashboard: time on x, one line a series, optionally stacked, with
// the unit's formatting on the y axis and a legend of each series' last value. No library.
"use strict";

const PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563",
                 "#65a30d", "#9333ea"];
const SVG_NS = "http://www.w3.org/2000/svg";

function scaled(value, steps, names) {
  let i = 0;
  while (Math.abs(value) >= steps && i < names.length - 1) { value /= steps; i += 1; }
  return `${+value.toFixed(value >= 100 ? 0 : 2)}${names[i]}`;
}

// Grafana's unit names, as panels.py writes them.
function formatValue(value, unit) {
  if (!Number.isFinite(value)) return "-";
  switch (unit) {
    case "ms": return value >= 1000 ? `${+(value / 1000).toFixed(2)} s` : `${+value.toFixed(3)} ms`;
    case "percentunit": return `${+(value * 100).toFixed(1)}%`;
    case "percent": return `${+value.toFixed(1)}%`;
    case "Bps": return scaled(value, 1024, [" B/s", " KiB/s", " MiB/s", " GiB/s"]);
    case "bytes": return scaled(value, 1024, [" B", " KiB", " MiB", " GiB"]);
    case "reqps": case "ops": return `${scaled(value, 1000, ["", "k", "M"])}/s`;
    default: return scaled(value, 1000, ["", "k", "M", "G"]);
  }
}

function element(name, attributes) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

// series: [{name, points: [[seconds, value], ...]}]; each value a number, NaN where there is none.
function stack(series) {
  const totals = new Map();
  return series.map((s) => ({
    name: s.name,
    last: s.points.length ? s.points[s.points.length - 1][1] : NaN,
    points: s.points.map(([t, v]) => {
      const sum = (totals.get(t) || 0) + (Number.isFinite(v) ? v : 0);
      totals.set(t, sum);
      return [t, sum];
    }),
  }));
}

function extent(series, index) {
  let low = Infinity, high = -Infinity;
  for (const s of series) for (const p of s.points) {
    if (Number.isFinite(p[index])) { low = Math.min(low, p[index]); high = Math.max(high, p[index]); }
  }
  return [low, high];
}

// A gap in the samples (a broker that was down, a series that came back) lifts the pen: no line
// is drawn across time nothing was scraped.
function path(points, x, y, step) {
  let d = "", pen = "M", previous = -Infinity;
  for (const [t, v] of points) {
    if (t - previous > 2 * step) pen = "M";
    previous = t;
    if (!Number.isFinite(v)) { pen = "M"; continue; }
    d += `${pen}${x(t).toFixed(1)},${y(v).toFixed(1)}`;
    pen = "L";
  }
  return d;
}

function clock(seconds) {
  return new Date(seconds * 1000).toTimeString().slice(0, 8);
}

function drawChart(container, series, options) {
  const width = Math.max(container.clientWidth, 200), height = 150, left = 64, bottom = 18, top = 6;
  // Stacked: in the panel's order (the stages of a request). Otherwise the busiest series first, so
  // the legend's first lines are the ones that matter.
  const drawn = options.stacked ? stack(series) : series.map((s) => ({
    ...s, last: s.points.length ? s.points[s.points.length - 1][1] : NaN }))
    .sort((a, b) => (Number.isFinite(b.last) ? b.last : -Infinity) - (Number.isFinite(a.last) ? a.last : -Infinity));
  const [t0, t1] = [options.start, options.end];
  let [low, high] = extent(drawn, 1);
  if (!Number.isFinite(low)) { low = 0; high = 1; }
  low = Math.min(low, 0);
  if (high <= low) high = low + 1;
  const x = (t) => left + (t - t0) / Math.max(t1 - t0, 1) * (width - left - 4);
  const y = (v) => top + (1 - (v - low) / (high - low)) * (height - top - bottom);
  const svg = element("svg", { viewBox: `0 0 ${width} ${height}`, height });
  for (const fraction of [0, 0.5, 1]) {
    const value = low + fraction * (high - low);
    svg.append(element("line", { x1: left, x2: width - 4, y1: y(value), y2: y(value), stroke: "#e5e7eb" }));
    const label = element("text", { x: left - 4, y: y(value) + 4, "text-anchor": "end", "font-size": 10,
                                    fill: "#57606a" });
    label.textContent = formatValue(value, options.unit);
    svg.append(label);
  }
  for (const [t, anchor] of [[t0, "start"], [t1, "end"]]) {
    const label = element("text", { x: x(t), y: height - 4, "text-anchor": anchor, "font-size": 10, fill: "#57606a" });
    label.textContent = clock(t);
    svg.append(label);
  }
  drawn.forEach((s, i) => {
    svg.append(element("path", { d: path(s.points, x, y, options.step), fill: "none", stroke: PALETTE[i % PALETTE.length],
                                 "stroke-width": 1.5, "data-series": s.name }));
  });
  const legend = document.createElement("div");
  legend.className = "legend";
  drawn.forEach((s, i) => {
    const line = document.createElement("div");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = PALETTE[i % PALETTE.length];
    line.append(swatch, `${s.name}: ${formatValue(s.last, options.unit)}`);
    legend.append(line);
  });
  container.replaceChildren(svg, legend);
}
