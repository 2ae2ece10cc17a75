// kafka-dashboard's pages: the panels of /panels.json (kafka/tools/dashboard/panels.py), each query
// asked of Prometheus's HTTP API through the dashboard server (/api/v1/query_range), drawn with
// line_chart.js. Every panel says what it shows: data, "no data" (and why it may be absent), an
// error, or that no broker is up, in its data-state attribute and its note.
"use strict";

const params = new URLSearchParams(location.search);
const RANGE_S = Number(params.get("range") || 300);  // the last five minutes
const STEP_S = Math.max(Math.round(RANGE_S / 150), 1);  // seconds between the points of a line
let settings, page, refreshing = false;

function api(path, query) {
  return fetch(`/api/v1/${path}?${new URLSearchParams(query)}`).then(async (response) => {
    let body;
    try { body = await response.json(); } catch (e) { body = { status: "error", error: `HTTP ${response.status}` }; }
    if (body.status !== "success") {
      const error = new Error(body.error || `HTTP ${response.status}`);
      error.unavailable = body.errorType === "unavailable";
      throw error;
    }
    return body.data;
  });
}

function legendOf(template, labels, expr) {
  if (!template) return JSON.stringify(labels) === "{}" ? expr : JSON.stringify(labels);
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name) => labels[name] ?? "");
}

function promql(expr) {
  const request = document.getElementById("request").value || "Produce";
  return expr.replaceAll("$__rate_interval", settings.rate_interval).replaceAll("$request", request);
}

function setStatus(state, text) {
  const status = document.getElementById("status");
  status.dataset.state = state;
  status.textContent = text;
}

function setPanel(panel, state, note) {
  panel.element.dataset.state = state;
  panel.note.textContent = note;
  if (state !== "data") panel.chart.replaceChildren();
}

// Which brokers Prometheus finds up: the page says so above the panels, and if none, in each panel.
async function brokersUp() {
  let data;
  try {
    data = await api("query", { query: 'up{job="kafka-teaching"}' });
  } catch (e) {
    setStatus("no-prometheus", `Prometheus is not answering (${e.message}). Is make dashboard still running?`);
    return false;
  }
  const up = data.result.filter((r) => r.value[1] === "1").map((r) => r.metric.instance);
  if (up.length === 0) {
    setStatus("no-broker", `No broker is up: Prometheus scrapes ${settings.targets.join(", ")} and none answers. ` +
              "Start one (make run, make cluster or make cluster-split); the panels fill within seconds.");
    return false;
  }
  setStatus("ok", `Brokers and controllers up: ${up.sort().join(", ")}. Prometheus: ${settings.prometheus}.`);
  return true;
}

async function refreshPanel(panel, start, end) {
  const series = [];
  try {
    for (const target of panel.spec.targets) {
      const data = await api("query_range", { query: promql(target.expr), start, end, step: STEP_S });
      for (const result of data.result) {
        series.push({ name: legendOf(target.legend, result.metric, target.expr),
                      points: result.values.map(([t, v]) => [t, Number(v)]) });
      }
    }
  } catch (e) {
    setPanel(panel, "error", `Prometheus refused a query: ${e.message}`);
    return;
  }
  if (!series.some((s) => s.points.some(([, v]) => Number.isFinite(v)))) {
    const why = panel.spec.only_with ? ` These series exist only with ${panel.spec.only_with}.` : "";
    setPanel(panel, "empty", `No data in the last ${RANGE_S / 60} minutes.${why}`);
    return;
  }
  panel.element.dataset.state = "data";
  panel.note.textContent = "";
  drawChart(panel.chart, series, { unit: panel.spec.unit, stacked: panel.spec.stacked, start, end, step: STEP_S });
}

async function refresh() {
  if (refreshing) return;
  refreshing = true;
  try {
    if (!(await brokersUp())) {
      for (const panel of page.panels) setPanel(panel, "no-broker", "No broker is up: nothing to draw.");
      return;
    }
    const end = Date.now() / 1000, start = end - RANGE_S;
    await Promise.all(page.panels.map((panel) => refreshPanel(panel, start, end)));
  } finally {
    refreshing = false;
    document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
  }
}

function buildPanel(spec) {
  const element = document.createElement("section");
  element.className = "panel";
  element.dataset.state = "loading";
  element.style.gridColumn = `span ${spec.width}`;
  const title = document.createElement("h3");
  title.textContent = spec.title;
  if (spec.description) title.title = spec.description;
  const note = document.createElement("div");
  note.className = "note";
  note.textContent = "Loading...";
  const chart = document.createElement("div");
  chart.className = "chart";
  element.append(title, note, chart);
  return { spec, element, note, chart };
}

function buildPage() {
  const nav = document.getElementById("pages");
  for (const p of settings.pages) {
    const link = document.createElement("a");
    link.href = `/${p.slug}${location.search}`;
    link.textContent = p.title;
    if (p === page) link.className = "current";
    nav.append(link);
  }
  document.title = `${page.title}: Kafka, the teaching edition`;
  page.panels = [];
  const rows = document.getElementById("rows");
  for (const row of page.rows) {
    const heading = document.createElement("h2");
    heading.textContent = row.title;
    const grid = document.createElement("div");
    grid.className = "row";
    for (const spec of row.panels) {
      const panel = buildPanel(spec);
      page.panels.push(panel);
      grid.append(panel.element);
    }
    rows.append(heading, grid);
  }
}

async function buildRequestPicker() {
  if (!page.panels.some((p) => p.spec.title.includes("$request"))) return;
  const select = document.getElementById("request");
  let names = ["Produce"];
  try {
    const found = await api("label/request/values", { "match[]": "kafka_network_requestmetrics_totaltimems_count" });
    if (found.length) names = found;
  } catch (e) { /* Prometheus down: the status line says so */ }
  const chosen = params.get("request") || (names.includes("Produce") ? "Produce" : names[0]);
  for (const name of names) select.append(new Option(name, name, false, name === chosen));
  for (const panel of page.panels) panel.element.querySelector("h3").textContent =
    panel.spec.title.replace("$request", chosen);
  select.addEventListener("change", () => {
    for (const panel of page.panels) panel.element.querySelector("h3").textContent =
      panel.spec.title.replace("$request", select.value);
    refresh();
  });
  document.getElementById("picker").hidden = false;
}

async function main() {
  settings = await (await fetch("/panels.json")).json();
  const slug = location.pathname.replace(/^\/+|\/+$/g, "");
  page = settings.pages.find((p) => p.slug === slug) || settings.pages[0];
  buildPage();
  await buildRequestPicker();
  await refresh();
  setInterval(refresh, Number(params.get("refresh") || settings.refresh_s) * 1000);
}

main();
