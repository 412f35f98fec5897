/* trialrun viewer: one page for the HTML report (pages embedded) and `trialrun view`
   (pages fetched from the local server). No dependencies; plots arrive as SVG text. */
"use strict";
const MODE = document.body.dataset.mode;
const HEAD = MODE === "static" ? document.getElementById("payload") : null;
const EMBED = HEAD ? inflate(HEAD.textContent) : null;
const CHUNKS = new Map();  /* chunk element id -> its inflated pages, only once opened */
const PAGE = 100, FOLD = 600;
const cache = new Map();
let poll = null, view = { run: null, rows: [], filters: {}, sort: ["status", 1], page: 0 };

/* the report's pages: gzipped JSON in base64, inflated once by the browser itself */
async function inflate(text) {
  const bin = atob(text.trim());
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

/* a task or trial page of the report: in the head payload, else in its chunk (element
   chunk-<kind>-<n>, data-chunk pages each), inflated the first time one of its pages opens */
async function embedded(path) {
  const head = await EMBED;
  if (head[path] !== undefined) return head[path];
  const m = /\/(task|trial)\/(\d+)$/.exec(path);
  if (!m) return undefined;
  const id = "chunk-" + m[1] + "-" + Math.floor(Number(m[2]) / Number(HEAD.dataset.chunk));
  const el = document.getElementById(id);
  if (!el) return undefined;
  if (!CHUNKS.has(id)) CHUNKS.set(id, inflate(el.textContent));
  return (await CHUNKS.get(id))[path];
}

async function get(path, fresh) {
  if (EMBED) {
    const text = await embedded(path);
    if (text === undefined) throw new Error("not in this report: " + path);
    if (!cache.has(path)) cache.set(path, JSON.parse(text));
    return cache.get(path);
  }
  if (!fresh && cache.has(path)) return cache.get(path);
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) throw new Error(path + ": " + r.status + " " + (await r.text()));
  const data = await r.json();
  cache.set(path, data);
  return data;
}

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "html") el.innerHTML = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}
const pct = (v) => (typeof v === "number" ? (v * 100).toFixed(1) + "%" : "—");
const secs = (v) => (typeof v === "number" ? v.toFixed(v < 10 ? 3 : 1) + " s" : "—");
const money = (v) => (typeof v === "number" ? "$" + v.toFixed(4) : "—");
const badge = (word) => h("span", { class: "badge b-" + String(word).replace(/\s+/g, "-") }, word);
/* a comparison label, "within noise · drift": one badge per word group */
const verdictBadges = (text) => String(text).split(" · ").map(badge);
const PASS_K_TITLE = "pass^k (completed): the chance that k trials all finish without an error; it says nothing about the answer (solve^k does)";
const enc = encodeURIComponent;

function folded(text, cls) {
  text = text === null || text === undefined ? "" : String(text);
  const pre = h("pre", { class: cls || null }, text);
  if (text.length <= FOLD) return pre;
  return h("details", {}, h("summary", {}, text.slice(0, 120).replace(/\s+/g, " ") + "… (" + text.length + " chars)"), pre);
}
function jsonText(value) {
  if (typeof value === "string") {
    try { return JSON.stringify(JSON.parse(value), null, 2); } catch (e) { return value; }
  }
  return JSON.stringify(value, null, 2);
}

function stopPoll() { if (poll) { clearInterval(poll); poll = null; } }

async function route() {
  stopPoll();
  const main = document.getElementById("main");
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    let node;
    if (parts[0] === "run" && parts[2] === "task") node = await taskPage(parts[1], +parts[3]);
    else if (parts[0] === "run" && parts[2] === "trial") node = await trialPage(parts[1], +parts[3]);
    else if (parts[0] === "run" && parts[1]) node = await runPage(parts[1]);
    else if (parts[0] === "compare") node = await comparePage(parts[1], parts[2]);
    else {
      const index = await get("/api/runs");
      if (EMBED && index.runs.length === 1) { location.hash = "#/run/" + enc(index.runs[0].run_id); return; }
      node = runsPage(index);
      if (!EMBED) node = h("div", {}, node, await historySection());
      if (!EMBED) {  // new runs and finished trials show up without a reload
        let seen = JSON.stringify(index);
        poll = setInterval(async () => {
          try {
            const now = await get("/api/runs", true);
            if (JSON.stringify(now) !== seen) { seen = JSON.stringify(now); main.replaceChildren(runsPage(now), await historySection()); }
          } catch (e) { /* the server went away: keep what is shown */ }
        }, 2000);
      }
    }
    main.replaceChildren(node);
    window.scrollTo(0, 0);
  } catch (e) {
    main.replaceChildren(h("div", { class: "err", id: "error" }, String(e.message || e)));
  }
  document.body.dataset.ready = location.hash;
}

/* ---------- the list of runs (trialrun view) ---------- */
const picked = new Set();  // runs ticked for comparison (kept across redraws)
function runsPage(index) {
  for (const id of [...picked]) if (!index.runs.some((r) => r.run_id === id)) picked.delete(id);
  const button = h("button", { id: "compare", disabled: picked.size !== 2, onclick: () => {
    const [a, b] = [...picked];
    location.hash = "#/compare/" + enc(a) + "/" + enc(b);
  } }, "Compare the two picked runs");
  const rows = index.runs.map((r) => h("tr", {},
    h("td", {}, h("input", { type: "checkbox", "aria-label": "pick " + r.run_id, checked: picked.has(r.run_id), onchange: (ev) => {
      ev.target.checked ? picked.add(r.run_id) : picked.delete(r.run_id);
      button.disabled = picked.size !== 2;
    } })),
    h("td", {}, h("a", { href: "#/run/" + enc(r.run_id) }, r.run_id), r.in_progress ? badge("live") : null),
    h("td", {}, r.started_at || "—"),
    h("td", {}, (r.models || []).join(", ")),
    h("td", { class: "num" }, r.finished + " / " + r.expected),
    h("td", { class: "num solve-k" }, solveRates(r)),
    h("td", { class: "mute small" }, r.error || "")));
  return h("div", {},
    h("h1", {}, "Runs under " + index.root),
    h("p", { class: "mute" }, index.runs.length + " run(s); newest first. Pick two to compare them side by side."),
    h("table", { id: "runs" }, h("thead", {}, h("tr", {}, ["", "run", "started", "models", "trials", "solve^k", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows)),
    h("div", { class: "pager" }, button));
}

function solveRates(r) {
  const rates = Object.entries(r.solve_k_rates || {});
  if (rates.length <= 1) return pct(r.solve_k_rate);
  return rates.map(([m, v]) => h("div", { "data-model": m }, h("span", { class: "mute small" }, m + " "), pct(v)));
}

async function historySection() {
  try {
    const hist = await get("/api/history", true);
    return h("div", { id: "history", "data-source": hist.source || null },
      h("h2", {}, "History: solve rate per task, last " + hist.runs.length + " run(s)"),
      h("p", { class: "mute small" }, "from " + (hist.source || "the run folders")),
      hist.shown < hist.rows ? h("p", { class: "mute small" }, hist.shown + " of " + hist.rows + " rows shown (the ones not always solved first)") : null,
      h("div", { class: "plot", html: hist.svg }));
  } catch (e) { return h("div", { class: "mute" }, "history: " + e.message); }
}

/* ---------- one run ---------- */
async function runPage(runId) {
  const run = await get("/api/run/" + enc(runId), true);
  if (view.run !== runId) view = { run: runId, filters: {}, sort: ["status", 1], page: 0 };
  const root = h("div", { id: "run" });
  renderRun(root, run);
  if (EMBED && (await EMBED)["/api/history"] !== undefined) root.append(await historySection());  // the report: history from a store
  if (!EMBED) {
    let version = run.version;
    poll = setInterval(async () => {
      try {
        const st = await get("/api/run/" + enc(runId) + "/status", true);
        if (st.version !== version) {
          version = st.version;
          renderRun(root, await get("/api/run/" + enc(runId), true));
        }
      } catch (e) { /* the server went away: keep what is shown */ }
    }, 1000);
  }
  return root;
}

function renderRun(root, run) {
  view.data = run;
  const kids = [h("div", { class: "crumbs" }, MODE === "server" ? h("a", { href: "#/" }, "← all runs") : null),
    h("h1", {}, "Run ", h("code", {}, run.run_id), " ", run.in_progress ? badge("live") : null),
    h("p", { class: "mute small" },
      [run.started_at ? "started " + run.started_at : null, run.git_sha ? "git " + run.git_sha.slice(0, 10) : null,
       "trialrun " + (run.trialrun_version || "?"), "trials " + run.finished + " / " + run.expected].filter(Boolean).join(" · "))];
  for (const w of run.warnings || []) kids.push(h("div", { class: "warnbox" }, w));
  for (const m of run.headline) kids.push(headline(m, run.models.length > 1));
  kids.push(h("h2", {}, "Plots"));
  kids.push(h("div", { class: "plots", id: "plots" }, run.plots.map((p) => h("div", { class: "plot", "data-plot": p.id, html: p.svg }))));
  kids.push(h("h2", {}, "Tasks"));
  const tableBox = h("div", { id: "tasks-box" });
  kids.push(filters(run, tableBox), tableBox);
  root.replaceChildren(...kids);
  drawTable(tableBox);
}

function headline(m, many) {
  const cover = (key) => (m.cover[key][0] === m.cover[key][1] ? "" : " over " + m.cover[key][0] + " of " + m.cover[key][1]);
  const card = (label, value, id, title) => h("div", { class: "card", "data-figure": id || null, title: title || null }, h("div", { class: "v" }, value), h("div", { class: "l" }, label));
  return h("div", { class: "headline", "data-model": m.model },
    many ? h("h2", {}, m.model) : h("div", { class: "mute small" }, "model " + m.model),
    h("div", { class: "cards" },
      card("solve^k" + cover("solve_k"), pct(m.solve_k_rate), "solve_k", "solve^k: the chance that k trials all give the right outcome"),
      card("pass@k" + cover("pass_at_k"), pct(m.pass_at_k_rate), "pass_at_k", "pass@k: the chance that at least one of k trials gives the right outcome"),
      card("mean solve rate", pct(m.mean_solve_rate), "mean_solve_rate", "solved trials / counted trials"),
      card("pass^k (completed)" + cover("pass_k"), pct(m.pass_k_rate), "pass_k", PASS_K_TITLE),
      card("tasks · trials", (m.tasks ?? "—") + " · " + (m.trials ?? "—")),
      card("flaky tasks", m.flaky_task_count ?? "—", "flaky"),
      card("infra errors", m.infra_errors ?? "—", "infra"),
      card("undetermined", m.undetermined ?? "—", "undetermined"),
      card("insufficient", m.insufficient ?? "—"),
      card("safety violations", m.safety_violations ?? "—"),
      card("latency P50 / P95", secs(m.latency_p50_s) + " / " + secs(m.latency_p95_s), "latency"),
      card("cost", money(m.cost_usd), "cost")),
    m.comparison ? verdictBlock(m.comparison, "Against " + m.comparison.against) : null);
}

/* a comparison's verdict, as on every surface: mean solve rate, the suite-level test,
   the counts and each dropped task's label (text made by the server) */
function verdictBlock(c, title) {
  const dropped = c.tasks.filter((t) => t.label === "regression" || t.label === "within noise");
  return h("div", { class: "verdict", "data-suite": c.suite_verdict },
    h("p", {}, h("b", {}, title + ": "), h("span", { class: "mean-solve" }, c.mean_solve),
      c.solve_k ? "; " + c.solve_k : ""),
    h("p", { class: "suite" + (c.suite_verdict === "regression" ? " bad" : "") }, c.suite),
    h("p", { class: "counts" }, c.counts),
    dropped.length ? h("table", { class: "drops" },
      h("thead", {}, h("tr", {}, ["task", "change", "verdict"].map((x) => h("th", {}, x)))),
      h("tbody", {}, dropped.map((t) => h("tr", { "data-task": t.task_id, "data-verdict": t.verdict },
        h("td", {}, t.task_id), h("td", {}, t.change), h("td", {}, verdictBadges(t.verdict)))))) : null);
}

const COLUMNS = [
  ["task_id", "task"], ["model", "model"], ["suite", "suite"], ["tier", "tier"], ["solved", "solved", true],
  ["solve_k", "solve^k", true], ["pass_at_k", "pass@k", true], ["pass_k", "pass^k (completed)", true], ["status", "status"], ["failed", "failed graders"],
];
const STATUS_ORDER = { failure: 0, error: 1, pending: 2, skipped: 3, passed: 4 };

function filters(run, box) {
  const f = view.filters;
  const select = (key, label, values) => h("select", { "data-filter": key, "aria-label": label, onchange: (ev) => { f[key] = ev.target.value; view.page = 0; drawTable(box); } },
    h("option", { value: "" }, "any " + label), values.map((v) => h("option", { value: v, selected: f[key] === v }, v)));
  return h("div", { class: "filters" },
    h("input", { type: "search", placeholder: "filter task id…", "data-filter": "q", value: f.q || "", oninput: (ev) => { f.q = ev.target.value; view.page = 0; drawTable(box); } }),
    run.models.length > 1 ? select("model", "model", run.facets.models) : null,
    select("suite", "suite", run.facets.suites),
    select("tier", "tier", run.facets.tiers),
    run.facets.tags.length ? select("tag", "tag", run.facets.tags) : null,
    select("status", "status", ["failing", "passed", "flaky", "regressed", "drift", "pending", "insufficient"]));
}

function keep(r) {
  const f = view.filters;
  if (f.q && !r.task_id.toLowerCase().includes(f.q.toLowerCase())) return false;
  if (f.model && r.model !== f.model) return false;
  if (f.suite && r.suite !== f.suite) return false;
  if (f.tier && r.tier !== f.tier) return false;
  if (f.tag && !r.tags.includes(f.tag)) return false;
  switch (f.status) {
    case "failing": return r.status === "failure" || r.status === "error";
    case "passed": return r.status === "passed";
    case "flaky": return r.flaky;
    case "regressed": return (r.change || "").startsWith("regression");
    case "drift": return (r.change || "").endsWith("drift");
    case "pending": return r.status === "pending";
    case "insufficient": return r.status === "skipped" || r.status === "error";
  }
  return true;
}

function sortValue(r, key) {
  if (key === "status") return STATUS_ORDER[r.status] ?? 9;
  if (key === "solved") return r.n - r.undetermined ? r.solved / (r.n - r.undetermined) : -1;
  if (key === "failed") return -Object.keys(r.failed_graders).length;
  const v = r[key];
  return v === null || v === undefined ? -1 : v;
}

function drawTable(box) {
  const run = view.data, many = run.models.length > 1;
  const [key, dir] = view.sort;
  const rows = run.tasks.filter(keep);
  rows.sort((a, b) => {
    const x = sortValue(a, key), y = sortValue(b, key);
    return (x < y ? -1 : x > y ? 1 : a.i - b.i) * dir;
  });
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  view.page = Math.min(view.page, pages - 1);
  const shown = rows.slice(view.page * PAGE, (view.page + 1) * PAGE);
  const head = COLUMNS.filter(([k]) => many || k !== "model").map(([k, label, num]) =>
    h("th", { class: "sort" + (num ? " num" : ""), "data-sort": k, title: k === "pass_k" ? PASS_K_TITLE : null, onclick: () => {
      view.sort = [k, view.sort[0] === k ? -view.sort[1] : 1]; drawTable(box);
    } }, label + (key === k ? (dir > 0 ? " ▲" : " ▼") : "")));
  const body = shown.map((r) => {
    const failed = Object.entries(r.failed_graders).map(([g, c]) => g + " ×" + c).join(", ");
    const open = () => { location.hash = "#/run/" + enc(run.run_id) + "/task/" + r.i; };
    const cells = [
      h("td", {}, h("a", { href: "#/run/" + enc(run.run_id) + "/task/" + r.i, class: "task-link" }, r.task_id),
        r.tags.length ? h("div", { class: "mute small" }, r.tags.join(" ")) : null),
      many ? h("td", { class: "small" }, r.model) : null,
      h("td", {}, r.suite), h("td", {}, r.tier || "—"),
      h("td", { class: "num" }, r.solved + "/" + (r.n - r.undetermined) + (r.infra ? " (" + r.infra + " infra)" : "")),
      h("td", { class: "num" }, pct(r.solve_k)), h("td", { class: "num" }, pct(r.pass_at_k)), h("td", { class: "num" }, pct(r.pass_k)),
      h("td", {}, badge(r.status), r.flaky ? badge("flaky") : null, r.change && r.change !== "unchanged" ? verdictBadges(r.change) : null),
      h("td", { class: "small" }, failed, r.first_failed !== null ? [" ", h("a", { href: "#/run/" + enc(run.run_id) + "/trial/" + r.first_failed, class: "trial-link", onclick: (ev) => ev.stopPropagation() }, "first failing trial →")] : null),
    ];
    return h("tr", { class: "click", "data-task": r.task_id, "data-status": r.status, onclick: (ev) => { if (ev.target.tagName !== "A") open(); } }, cells);
  });
  const pager = h("div", { class: "pager" },
    h("button", { disabled: view.page === 0, onclick: () => { view.page--; drawTable(box); } }, "‹ prev"),
    h("span", { id: "count" }, rows.length ? (view.page * PAGE + 1) + "–" + (view.page * PAGE + shown.length) + " of " + rows.length + " task rows" : "no task matches"),
    h("button", { disabled: view.page >= pages - 1, onclick: () => { view.page++; drawTable(box); } }, "next ›"));
  box.replaceChildren(h("table", { id: "tasks" }, h("thead", {}, h("tr", {}, head)), h("tbody", {}, body)), pager);
}

/* ---------- one task × model ---------- */
async function taskPage(runId, row) {
  const t = await get("/api/run/" + enc(runId) + "/task/" + row);
  const [status, message] = t.outcome;
  return h("div", { id: "task" },
    h("div", { class: "crumbs" }, h("a", { href: "#/run/" + enc(runId) }, "← run " + runId)),
    h("h1", {}, t.task_id, " ", badge(status), t.flaky ? badge("flaky") : null),
    h("p", { class: "mute" }, t.model + " · suite " + t.suite + " · tier " + (t.tier || "—") + " · k = " + t.k),
    message ? h("p", {}, message) : null,
    h("div", { class: "cards" },
      [["solve^k", pct(t.solve_k)], ["pass@k", pct(t.pass_at_k)], ["solved", t.solved + " / " + t.solve_n], ["pass^k (completed)", pct(t.pass_k), PASS_K_TITLE], ["completed", t.passed + " / " + (t.pass_n ?? t.n)]]
        .map(([l, v, title]) => h("div", { class: "card", title: title || null }, h("div", { class: "v" }, v), h("div", { class: "l" }, l)))),
    h("div", { class: "plot", html: t.svg }),
    h("h2", {}, "Trials"),
    h("table", { id: "trials" },
      h("thead", {}, h("tr", {}, ["#", "status", "failed graders", "turns", "tool calls", "latency", "cost", "final answer"].map((x) => h("th", {}, x)))),
      h("tbody", {}, t.trials.map((x) => h("tr", { class: "click", "data-trial": x.trial, onclick: () => { location.hash = "#/run/" + enc(runId) + "/trial/" + x.line; } },
        h("td", {}, h("a", { href: "#/run/" + enc(runId) + "/trial/" + x.line }, "trial " + x.trial)),
        h("td", {}, badge(x.status)),
        h("td", { class: "small" }, x.failed_graders.join(", ") || (x.error ? x.error.kind + ": " + x.error.message : "")),
        h("td", { class: "num" }, x.turns ?? "—"), h("td", { class: "num" }, x.tool_calls),
        h("td", { class: "num" }, secs(x.latency_s)), h("td", { class: "num" }, money(x.cost_usd)),
        h("td", { class: "small" }, x.final_text))))));
}

/* ---------- one trial ---------- */
async function trialPage(runId, line) {
  const t = await get("/api/run/" + enc(runId) + "/trial/" + line);
  const tok = t.tokens || {};
  const results = new Map();
  for (const m of t.messages) if (m.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, m);
  return h("div", { id: "trial" },
    h("div", { class: "crumbs" }, h("a", { href: "#/run/" + enc(runId) }, "← run"), h("a", { href: "#/run/" + enc(runId) + "/task/" + t.row }, "← " + t.task_id)),
    h("h1", {}, t.task_id + " · trial " + t.trial + " ", badge(t.status), t.safety_violation ? badge("safety violation") : null),
    h("p", { class: "mute" }, t.model),
    h("div", { class: "cards" },
      [["latency", secs(t.latency_s)], ["turns", t.turns ?? "—"], ["tool calls", t.tool_calls.length],
       ["tokens (prompt + completion)", (tok.prompt ?? 0) + " + " + (tok.completion ?? 0)], ["cost", money(t.cost_usd)]]
        .map(([l, v]) => h("div", { class: "card" }, h("div", { class: "v" }, v), h("div", { class: "l" }, l)))),
    t.error ? h("div", { class: "err", id: "trial-error" }, h("b", {}, "error (" + t.error.kind + "): "), t.error.message) : null,
    h("h2", {}, "Verdicts"),
    h("table", { id: "verdicts" }, h("thead", {}, h("tr", {}, h("th", {}, "grader"), h("th", {}, "verdict"), h("th", {}, "details"))),
      h("tbody", {}, t.verdicts.map((v) => h("tr", { class: v.passed === false ? "v-fail" : v.passed === null ? "v-undet" : "", "data-grader": v.grader },
        h("td", {}, h("code", {}, v.grader)),
        h("td", {}, badge(v.passed === true ? "passed" : v.passed === false ? "failed" : "undetermined")),
        h("td", {}, folded(jsonText(v.details || {}))))))),
    h("h2", {}, "Workspace diff"), workspaceDiff(t.workspace_diff),
    h("h2", {}, "Transcript"),
    h("div", { id: "transcript" }, t.transcript_note ? h("p", { class: "mute", id: "transcript-note" }, t.transcript_note)
      : t.messages.length ? t.messages.map((m) => message(m, results)) : h("p", { class: "mute" }, "no transcript stored for this trial")),
    t.turn_meta.length ? [h("h2", {}, "Timing per turn"),
      h("table", { id: "turns" }, h("thead", {}, h("tr", {}, ["turn", "latency", "prompt tokens", "completion tokens", "cost"].map((x) => h("th", {}, x)))),
        h("tbody", {}, t.turn_meta.map((m) => h("tr", {}, h("td", {}, m.turn), h("td", { class: "num" }, secs(m.latency_s)),
          h("td", { class: "num" }, (m.tokens || {}).prompt ?? "—"), h("td", { class: "num" }, (m.tokens || {}).completion ?? "—"), h("td", { class: "num" }, money(m.cost_usd))))))] : null);
}

function message(m, results) {
  if (m.role === "tool" && m.tool_call_id && results.has(m.tool_call_id)) return null; // shown with its call
  const content = typeof m.content === "string" ? m.content : m.content ? JSON.stringify(m.content, null, 2) : "";
  const calls = (m.tool_calls || []).map((c) => {
    const fn = c.function || c;
    const res = results.get(c.id);
    return h("div", { class: "call", "data-tool": fn.name },
      h("div", {}, "→ call ", h("span", { class: "name" }, fn.name)),
      h("div", { class: "small mute" }, "arguments"), h("div", { class: "args" }, folded(jsonText(fn.arguments ?? {}))),
      res ? [h("div", { class: "small mute" }, "← result"), h("div", { class: "result" }, folded(res.content))] : h("div", { class: "small mute" }, "(no result recorded)"));
  });
  return h("div", { class: "msg m-" + m.role }, h("div", { class: "role" }, m.role + (m.name ? " · " + m.name : "")), content ? folded(content) : null, calls);
}

function workspaceDiff(d) {
  if (!d) return h("p", { class: "mute", id: "diff" }, "not recorded for this trial (older runs did not record it)");
  const total = d.created.length + d.modified.length + d.deleted.length;
  const list = (label, paths) => (paths.length ? h("div", {}, h("b", {}, label + " (" + paths.length + ")"), h("ul", { class: "files" }, paths.map((p) => h("li", {}, p)))) : null);
  const texts = Object.entries(d.text || {}).map(([path, diff]) => h("details", { open: true },
    h("summary", {}, path),
    h("pre", { class: "diff" }, diff.split("\n").map((l) => h("div", { class: l.startsWith("@@") ? "hunk" : l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : "" }, l || " ")))));
  return h("div", { id: "diff" },
    total ? null : h("p", { class: "mute" }, "the workspace was left unchanged"),
    list("created", d.created), list("modified", d.modified), list("deleted", d.deleted),
    d.modified.length && !d.kept ? h("p", { class: "mute small" }, "text diffs need the kept workspace: run with --keep-artifacts") : null,
    d.note ? h("p", { class: "mute small" }, d.note) : null, texts);
}

/* ---------- two runs side by side ---------- */
async function comparePage(a, b) {
  const c = await get("/api/compare/" + enc(a) + "/" + enc(b));
  const oneSided = [[c.a, c.only_in_a], [c.b, c.only_in_b]].filter(([, ms]) => ms && ms.length);
  return h("div", { id: "compare-page" },
    h("div", { class: "crumbs" }, h("a", { href: "#/" }, "← all runs")),
    h("h1", {}, "Compare ", h("code", {}, c.b), " → ", h("code", {}, c.a)),
    h("p", { class: "mute" }, "before: " + c.b + " (older) · after: " + c.a + " (newer); regressions by a one-sided exact test per task and a stratified one over the tasks; drift: solved k/k before, below k/k now"),
    c.models.length ? null : h("p", {}, "no model in common"),
    oneSided.map(([run, ms]) => h("div", { class: "warnbox one-sided" }, "only in " + run + " (not compared): " + ms.join(", "))),
    c.models.map((m) => h("div", { class: "model-compare", "data-model": m.model },
      h("h2", {}, m.model),
      verdictBlock(m, "Verdict"),
      h("div", { class: "cards" },
        [["solve^k before → after", pct(m.before.solve_k_rate) + " → " + pct(m.after.solve_k_rate)],
         ["mean solve rate before → after", pct(m.before.mean_solve_rate) + " → " + pct(m.after.mean_solve_rate)],
         ["pass^k (completed) before → after", pct(m.before.pass_k_rate) + " → " + pct(m.after.pass_k_rate), PASS_K_TITLE],
         ["latency P95", secs(m.latency_p95_before_s) + " → " + secs(m.latency_p95_after_s)],
         ["regressions", m.regressions.length], ["within noise", m.within_noise.length], ["drift", m.drift.length]]
          .map(([l, v, title]) => h("div", { class: "card", title: title || null }, h("div", { class: "v" }, v), h("div", { class: "l" }, l)))),
      h("div", { class: "plot", html: m.svg }),
      h("table", { class: "compare-tasks" }, h("thead", {}, h("tr", {}, ["task", "before", "after", "p", "change"].map((x) => h("th", {}, x)))),
        h("tbody", {}, m.tasks.map((t) => h("tr", { "data-task": t.task_id, "data-verdict": t.verdict }, h("td", {}, t.task_id), h("td", { class: "num" }, t.before.join("/")),
          h("td", { class: "num" }, t.after.join("/")), h("td", { class: "num" }, t.p === null ? "—" : t.p.toPrecision(2)), h("td", {}, verdictBadges(t.verdict)))))))));
}

window.addEventListener("hashchange", route);
route();
