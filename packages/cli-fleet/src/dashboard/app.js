// The fleet dashboard: fetch for the snapshot and the actions, and for the live streams too (a
// small SSE reader over fetch, so that the token of a server started with --token-file goes in
// an Authorization header: EventSource cannot send one, and a token in a URL ends up in logs and
// history). No framework; every value from the server goes in as text, never as HTML.

const $ = (id) => document.getElementById(id);
const FINAL = new Set(["exited", "failed", "killed", "lost", "crashed"]);
const state = {
  workspaces: [],
  runs: [],
  tasks: [],
  selected: null,
  log: null,
  terms: new Map(),
  /** Run cards shown, by run id: `{key, node}` (key: what the card was built from). */
  cards: new Map(),
  events: null,
  timer: null,
  poll: null,
  runsPoll: null,
  ticker: null,
};

/** How often the runs alone are read again while one is live (their last lines). */
const RUNS_POLL_MS = 2000;

// The token lives in this tab's sessionStorage (this origin only, gone with the tab).
const TOKEN_KEY = "ariel-fleet-token";
const NEEDS_TOKEN = document.documentElement.dataset.auth === "bearer";

function withAuth(headers) {
  const token = NEEDS_TOKEN ? sessionStorage.getItem(TOKEN_KEY) : null;
  return token ? { ...headers, authorization: `Bearer ${token}` } : { ...headers };
}

class Unauthorized extends Error {}

/**
 * Follow an SSE endpoint with fetch: `on[eventName](data)` per message, `on.open()`,
 * `on.error()` before each reconnect (after `retry` ms, resuming with Last-Event-ID), `on.done()`
 * when the server answers 204. Returns `{ close() }`.
 */
function openStream(url, on) {
  const s = { closed: false, ac: null, lastId: null, retry: 1000 };
  const pause = () => new Promise((r) => setTimeout(r, s.retry));
  const dispatch = (block) => {
    let event = "message";
    const data = [];
    for (const line of block.split("\n")) {
      const c = line.indexOf(":");
      if (c === 0) continue;
      const key = c < 0 ? line : line.slice(0, c);
      const value = c < 0 ? "" : line.slice(c + 1).replace(/^ /, "");
      if (key === "id") s.lastId = value;
      else if (key === "event") event = value;
      else if (key === "data") data.push(value);
      else if (key === "retry" && /^\d+$/.test(value)) s.retry = Number(value);
    }
    if (data.length > 0 && on[event]) on[event](data.join("\n"));
  };
  (async () => {
    while (!s.closed) {
      s.ac = new AbortController();
      try {
        const headers = withAuth({ accept: "text/event-stream" });
        if (s.lastId) headers["last-event-id"] = s.lastId;
        const res = await fetch(url, { headers, signal: s.ac.signal, cache: "no-store" });
        if (res.status === 401) throw new Unauthorized();
        if (res.status === 204) {
          s.closed = true;
          on.done?.();
          return;
        }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        on.open?.();
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        let buf = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
          for (let i = buf.indexOf("\n\n"); i >= 0 && !s.closed; i = buf.indexOf("\n\n")) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            dispatch(block);
          }
        }
      } catch (e) {
        if (e instanceof Unauthorized) {
          s.closed = true;
          askToken("The token was not accepted. Enter it again.");
          return;
        }
      }
      if (s.closed) return;
      on.error?.();
      await pause();
    }
  })();
  return {
    close() {
      s.closed = true;
      s.ac?.abort();
    },
  };
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function notice(text) {
  const n = $("notice");
  n.textContent = text || "";
  n.hidden = !text;
}

async function api(path, init = {}) {
  const res = await fetch(path, { ...init, headers: withAuth(init.headers) });
  if (res.status === 401) {
    askToken("The token was not accepted. Enter it again.");
    throw new Unauthorized("not authorized");
  }
  const body = res.status === 204 ? null : await res.json();
  if (!res.ok) {
    const e = new Error(body?.message ? `${body.message} (${body.code})` : `HTTP ${res.status}`);
    e.hint = body?.hint;
    throw e;
  }
  return body;
}

function counts(obj) {
  const parts = Object.entries(obj)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  return parts.length ? parts.join(", ") : "none";
}

function renderWorkspaces() {
  const list = $("workspaces");
  list.replaceChildren();
  $("empty").hidden = state.workspaces.length > 0;
  for (const w of state.workspaces) {
    const dl = el(
      "dl",
      {},
      el("dt", {}, "Health"),
      el("dd", {}, el("span", { class: `health ${w.health}` }, w.health)),
      el("dt", {}, "Sources"),
      el("dd", {}, w.sources),
      el("dt", {}, "Tasks"),
      el("dd", {}, counts(w.tasks)),
      el("dt", {}, "Runs"),
      el("dd", {}, counts(w.runs)),
    );
    list.append(
      el(
        "li",
        { class: "card", "aria-label": `Workspace ${w.root}` },
        el("h3", {}, w.root),
        el("span", { class: "mono" }, w.hash),
        dl,
      ),
    );
  }
}

/** A run that kept its worktree: why, and the command that deals with it (to copy into a shell). */
function keptNote(r) {
  if (!r.kept) return [];
  return [
    el("p", { class: "kept" }, `kept (${r.kept.reason}): `, el("code", { class: "mono" }, r.kept.next)),
  ];
}

/** `4m12s`, `12s`, `2h03m`, `1d04h`: a duration in the two largest units that matter. */
function formatDuration(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const two = (n) => String(n).padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${two(s % 60)}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${two(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86400)}d${two(Math.floor(s / 3600) % 24)}h`;
}

/** How long a run ran (ended) or has been running (live; the ticker moves it on), or "" before it started. */
function durationOf(r, now = Date.now()) {
  if (!r.startedAt) return "";
  const end = FINAL.has(r.state) ? Date.parse(r.endedAt || r.startedAt) : now;
  return formatDuration(end - Date.parse(r.startedAt));
}

/** Move every live run's duration on (once a second; nothing else is redrawn). */
function tick() {
  const now = Date.now();
  for (const node of document.querySelectorAll("#runs .duration[data-live]")) {
    node.textContent = formatDuration(now - Number(node.dataset.live));
  }
}

/** Which group a run is shown in: `needs` (waiting for the user), `running` or `ended`. */
function groupOf(r) {
  if (FINAL.has(r.state)) return "ended";
  return r.activity === "waiting" ? "needs" : "running";
}

/** What a run's agent last used (docs/runs.md, "What agents report"): `Bash (running)`, `Edit (failed)`. */
function lastToolText(t) {
  const how = t.phase === "start" ? "running" : t.ok === false ? "failed" : "done";
  return `${t.name} (${how})`;
}

/**
 * The facts of a run, each a short labelled item: source (or, for a run over several legs, every
 * leg, each worktree in its title), task, branch, duration, exit status, last tool.
 */
function runFacts(r) {
  const fact = (label, value, cls = "") =>
    el("span", { class: `fact ${cls}` }, el("span", { class: "label" }, `${label} `), value);
  const facts = [];
  if (r.legs && r.legs.length > 1) {
    const legs = r.legs.map((l, i) => [
      ...(i > 0 ? [", "] : []),
      el("span", { class: "leg", title: l.worktree }, l.source),
    ]);
    facts.push(fact("legs", el("span", {}, ...legs.flat())));
  } else if (r.sources.length) facts.push(fact("source", r.sources.join(", ")));
  if (r.task) facts.push(fact("task", r.task));
  if (r.branch) facts.push(fact("branch", el("span", { class: "mono" }, r.branch)));
  const live = !FINAL.has(r.state) && r.startedAt;
  const duration = el("span", { class: "duration mono" }, durationOf(r));
  if (live) duration.dataset.live = String(Date.parse(r.startedAt));
  facts.push(fact(live ? "running for" : "ran", duration));
  if (r.sandbox)
    facts.push(fact("sandbox", r.sandbox.net === "none" ? "no network" : "network on", "sandbox"));
  if (FINAL.has(r.state)) facts.push(fact("exit", r.status === null ? "unknown" : String(r.status), "exit"));
  const tool = r.reported?.lastTool;
  if (tool) facts.push(fact("last tool", el("span", { class: "mono" }, lastToolText(tool)), "last-tool"));
  return el("p", { class: "facts" }, ...facts.flatMap((f, i) => (i === 0 ? [f] : [" · ", f])));
}

/** The run's buttons: its terminal (a tty run) or its log, then kill and respawn. */
function runActions(r, label) {
  const open = r.tty
    ? el(
        "button",
        { type: "button", "aria-label": `Terminal of ${label}`, onclick: () => follow(r) },
        "Terminal",
      )
    : el("button", { type: "button", "aria-label": `Log of ${label}`, onclick: () => follow(r) }, "Log");
  const kill = el(
    "button",
    { type: "button", class: "danger", "aria-label": `Kill ${label}`, onclick: () => act(r, "kill") },
    "Kill",
  );
  kill.disabled = FINAL.has(r.state);
  const respawn = el(
    "button",
    { type: "button", "aria-label": `Respawn ${label}`, onclick: () => act(r, "respawn") },
    "Respawn",
  );
  return el("div", { class: "actions" }, open, kill, respawn);
}

/** One run as a compact card: name first, its state and activity, facts, last line, then its id and command. */
function runCard(r) {
  const label = r.name || r.runId;
  const head = el(
    "div",
    { class: "run-head" },
    el("strong", { class: "run-name" }, label),
    el("span", { class: `state ${r.state}` }, r.state),
    r.activity ? el("span", { class: `activity ${r.activity}` }, r.activity) : "",
    runActions(r, label),
  );
  // Why it waits, in the agent's own words when it reported (a screen's question is its last line).
  const reason = r.activity === "waiting" && r.attention?.by === "agent" ? r.attention.reason : null;
  const why = reason
    ? el("p", { class: "waiting-reason", title: "why it waits, as its agent says" }, reason)
    : "";
  const last = el("p", { class: "last-line mono" }, r.lastLine ?? "");
  if (r.lastLine) last.title = r.lastLine;
  else last.classList.add("none");
  if (!r.lastLine) last.textContent = "no output yet";
  const ids = el(
    "p",
    { class: "ids" },
    r.name ? el("span", { class: "mono" }, r.runId) : "",
    el("span", {}, r.workspace.root),
    el("span", { class: "mono" }, r.argv.join(" ")),
  );
  return el(
    "li",
    {
      class: `run${state.selected === r.runId ? " selected" : ""}`,
      "data-run": r.runId,
      "aria-label": `Run ${label}`,
    },
    head,
    why,
    runFacts(r),
    last,
    ...keptNote(r),
    ids,
  );
}

/** A run's card: the one already shown while nothing of the run changed (focus and hover stay on it). */
function cardOf(r) {
  const key = `${state.selected === r.runId}${JSON.stringify(r)}`;
  const had = state.cards.get(r.runId);
  if (had && had.key === key) return had.node;
  const node = runCard(r);
  state.cards.set(r.runId, { key, node });
  return node;
}

/** Show `nodes` in `list`, touching it only when they differ from what it holds. */
function showList(list, nodes) {
  const now = [...list.children];
  if (now.length !== nodes.length || now.some((n, i) => n !== nodes[i])) list.replaceChildren(...nodes);
}

function renderRuns() {
  const filter = $("state-filter").value;
  const box = $("runs");
  // A card that changed is replaced: keep the keyboard focus on the same button (by its name).
  const focused = box.contains(document.activeElement)
    ? document.activeElement.getAttribute("aria-label")
    : null;
  const runs = state.runs.filter((r) => !filter || r.state === filter || r.activity === filter);
  for (const g of ["needs", "running", "ended"]) {
    const mine = runs.filter((r) => groupOf(r) === g);
    showList($(g), mine.map(cardOf));
    $(`${g}-count`).textContent = `(${mine.length})`;
    if (g !== "needs") $(g).parentElement.hidden = mine.length === 0;
  }
  const shown = new Set(runs.map((r) => r.runId));
  for (const id of state.cards.keys()) if (!shown.has(id)) state.cards.delete(id);
  $("no-needs").hidden = $("needs").children.length > 0;
  // Seen from another tab too: how many runs wait for the user.
  const waiting = state.runs.filter((r) => groupOf(r) === "needs").length;
  document.title = waiting > 0 ? `(${waiting}) ariel fleet` : "ariel fleet";
  $("no-runs").hidden = runs.length > 0;
  box.hidden = runs.length === 0;
  if (focused && !box.contains(document.activeElement)) {
    const again = [...box.querySelectorAll("button")].find((b) => b.getAttribute("aria-label") === focused);
    (again && !again.disabled ? again : $("runs-heading")).focus();
  }
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

/** One leg of a task: its source, branch, commits ahead of its base and files changed. */
function legLine(d) {
  return el(
    "li",
    {},
    el("strong", {}, d.source),
    " ",
    el("span", { class: "mono" }, d.branch),
    ` · ${plural(d.commits.length, "commit", "commits")} ahead · ${plural(d.files.length, "file", "files")} changed`,
    d.uncommitted.length > 0 ? ` · ${d.uncommitted.length} uncommitted` : "",
  );
}

function renderTasks() {
  const body = $("tasks").tBodies[0];
  body.replaceChildren();
  $("no-tasks").hidden = state.tasks.length > 0;
  $("tasks").hidden = state.tasks.length === 0;
  for (const t of state.tasks) {
    const id = t.record.taskId;
    const landed = t.record.land?.state;
    const legs = t.diff
      ? el("ul", { class: "legs" }, ...t.diff.map(legLine))
      : el("span", {}, t.error || "-");
    body.append(
      el(
        "tr",
        { "data-task": id },
        el("td", { class: "mono" }, id),
        el("td", {}, t.ws.root),
        el("td", {}, legs),
        el(
          "td",
          {},
          el("span", { class: `state ${t.record.state}` }, t.record.state),
          landed ? el("span", { class: `state ${landed}` }, landed) : "",
        ),
        el(
          "td",
          {},
          el(
            "button",
            { type: "button", class: "danger", "aria-label": `Land ${id}`, onclick: () => land(t) },
            "Land",
          ),
        ),
      ),
    );
  }
}

/** The tasks of the live workspaces, each with its legs' diff (or why it could not be read). */
async function loadTasks(workspaces) {
  const path = (w) => `/api/workspaces/${encodeURIComponent(w.hash)}/tasks`;
  const lists = await Promise.all(
    workspaces.map(async (w) => (await api(path(w))).map((record) => ({ ws: w, record }))),
  );
  return Promise.all(
    lists.flat().map(async (t) => {
      try {
        return { ...t, diff: await api(`${path(t.ws)}/${encodeURIComponent(t.record.taskId)}/diff`) };
      } catch (e) {
        return { ...t, error: e.message };
      }
    }),
  );
}

async function land(t) {
  const id = t.record.taskId;
  const ok = await confirmAction(
    `Land task ${id}? Every leg's branch is merged into its source's checked-out branch, or none is.`,
  );
  if (!ok) return;
  try {
    notice("");
    await api(`/api/workspaces/${encodeURIComponent(t.ws.hash)}/tasks/${encodeURIComponent(id)}/land`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await refresh();
  } catch (e) {
    notice(`land failed: ${e.message}${e.hint ? ` — ${e.hint}` : ""}`);
  }
}

/** Newest first: a live run by when it started, an ended one by when it ended. */
function byRecency(a, b) {
  const at = (r) => (FINAL.has(r.state) ? r.endedAt : r.startedAt) || "";
  return at(a) < at(b) ? 1 : at(a) > at(b) ? -1 : 0;
}

/** The runs of the live workspaces, newest first (the page groups them). */
async function loadRuns(live) {
  const lists = await Promise.all(live.map((w) => api(`/api/workspaces/${encodeURIComponent(w.hash)}/runs`)));
  return lists.flat().sort(byRecency);
}

function showRuns(runs) {
  state.runs = runs;
  renderRuns();
  const sel = state.runs.find((r) => r.runId === state.selected);
  if (sel) setLogState(sel.state);
}

async function refresh() {
  try {
    const fleet = await api("/api/fleet");
    $("host").textContent = fleet.host;
    state.workspaces = fleet.workspaces;
    const live = fleet.workspaces.filter((w) => w.health !== "gone");
    const [runs, tasks] = await Promise.all([loadRuns(live), loadTasks(live)]);
    state.tasks = tasks;
    renderWorkspaces();
    renderStartWorkspaces();
    renderTasks();
    showRuns(runs);
  } catch (e) {
    if (!(e instanceof Unauthorized)) notice(`Cannot load the fleet: ${e.message}`);
  }
}

/**
 * The runs alone, read again while any is live: their last lines and activities move without an
 * event the page follows (output is not followed: a page need not receive every run's bytes).
 */
async function refreshRuns() {
  if (!state.runs.some((r) => !FINAL.has(r.state))) return;
  try {
    showRuns(await loadRuns(state.workspaces.filter((w) => w.health !== "gone")));
  } catch (e) {
    if (!(e instanceof Unauthorized)) notice(`Cannot load the runs: ${e.message}`);
  }
}

function scheduleRefresh() {
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, 150);
}

function setLogState(s) {
  const n = $("log-state");
  n.textContent = s || "";
  n.className = `state ${s || ""}`;
}

/**
 * A tty run's terminal in the page (@xterm/xterm), in a pane of its own beside the others: the
 * run's stream replayed into it, then live; every key typed in it goes to the run through the
 * input route. Opening one already open focuses it.
 */
function openTerminal(run) {
  const open = state.terms.get(run.runId);
  if (open) return open.term.focus();
  const label = run.name || run.runId;
  const screen = el("div", { class: "term" });
  const close = el(
    "button",
    {
      type: "button",
      "aria-label": `Close the terminal of ${label}`,
      onclick: () => closeTerminal(run.runId),
    },
    "Close",
  );
  const pane = el(
    "section",
    { class: "term-pane", "data-run": run.runId, "aria-label": `Terminal of ${label}` },
    el(
      "h3",
      {},
      el("span", {}, label, run.name ? el("span", { class: "mono id" }, ` ${run.runId}`) : ""),
      close,
    ),
    screen,
  );
  // Escape outside the terminal itself closes it (inside, Escape is the agent's key).
  pane.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && !screen.contains(ev.target)) {
      ev.preventDefault();
      closeTerminal(run.runId);
    }
  });
  $("terms").append(pane);
  const term = new globalThis.Terminal({ cols: run.tty.cols, rows: run.tty.rows });
  term.open(screen);
  term.attachCustomKeyEventHandler((ev) => leaveKey(ev, close));
  term.onData(typist(run.runId, label));
  const stream = openStream(`/api/runs/${encodeURIComponent(run.runId)}/stream`, {
    output: (data) => term.write(JSON.parse(data).data),
    end: () => {
      stream.close();
      scheduleRefresh();
    },
  });
  state.terms.set(run.runId, { term, stream, pane });
  term.focus();
}

/** Ctrl-] in a terminal (ariel-runs attach's detach key) leaves it: the focus goes to its Close button. */
function leaveKey(ev, close) {
  if (!(ev.ctrlKey && ev.key === "]")) return true;
  if (ev.type === "keydown") close.focus();
  ev.preventDefault();
  return false;
}

/**
 * What a terminal calls with each key: the keys go out one request at a time, in order (two
 * requests in flight could arrive swapped), those typed meanwhile together in the next.
 */
function typist(runId, label) {
  let pending = "";
  let sending = false;
  const flush = async () => {
    sending = true;
    while (pending !== "") {
      const data = pending;
      pending = "";
      try {
        await api(`/api/runs/${encodeURIComponent(runId)}/input`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ data }),
        });
      } catch (e) {
        notice(`Typing into ${label} failed: ${e.message}`);
      }
    }
    sending = false;
  };
  return (data) => {
    pending += data;
    if (!sending) flush();
  };
}

/** Close a run's terminal; the focus goes back to the button that opens it (or the runs' heading). */
function closeTerminal(runId) {
  const t = state.terms.get(runId);
  if (!t) return;
  const hadFocus = t.pane.contains(document.activeElement);
  t.stream.close();
  t.term.dispose();
  t.pane.remove();
  state.terms.delete(runId);
  if (!hadFocus) return;
  const opener = document.querySelector(`#runs [data-run="${CSS.escape(runId)}"] .actions button`);
  (opener || $("runs-heading")).focus();
}

function follow(run) {
  if (run.tty && globalThis.Terminal) return openTerminal(run);
  if (state.log) state.log.close();
  state.selected = run.runId;
  renderRuns();
  const pre = $("log");
  pre.replaceChildren();
  const logRun = $("log-run");
  logRun.dataset.run = run.runId;
  logRun.replaceChildren(
    run.name || run.runId,
    run.name ? el("span", { class: "mono id" }, ` ${run.runId}`) : "",
  );
  setLogState(run.state);
  const show = (data) => {
    const e = JSON.parse(data);
    pre.append(el("span", { class: e.stream === "stderr" ? "stderr" : "" }, e.data));
    pre.scrollTop = pre.scrollHeight;
  };
  const marker = (data) => {
    const e = JSON.parse(data);
    const text =
      e.event === "run.state"
        ? `[${e.from} → ${e.to}]`
        : `[${e.event}${e.status !== undefined ? ` status ${e.status}` : ""}]`;
    pre.append(el("span", { class: "marker" }, `${text}\n`));
    if (e.event === "run.state") setLogState(e.to);
  };
  // `end`: the run is over, stop following. Any other close (`overflow` when this page fell too
  // far behind, a restarted server) makes openStream reconnect from the last id: nothing is lost.
  const on = { output: show, end: () => stop() };
  for (const name of ["run.started", "run.state", "run.exited", "run.lost"]) on[name] = marker;
  const stream = openStream(`/api/runs/${encodeURIComponent(run.runId)}/stream`, on);
  const stop = () => {
    stream.close();
    scheduleRefresh();
  };
  state.log = stream;
}

function confirmAction(text) {
  const dlg = $("confirm");
  $("confirm-text").textContent = text;
  return new Promise((resolve) => {
    dlg.addEventListener("close", () => resolve(dlg.returnValue === "ok"), { once: true });
    dlg.returnValue = "cancel";
    dlg.showModal();
    $("confirm-cancel").focus();
  });
}

async function act(run, what) {
  const label = run.name || run.runId;
  const ok = await confirmAction(
    what === "kill"
      ? `Kill run ${label}? Its process group gets SIGTERM, then SIGKILL.`
      : `Respawn run ${label}? A live run is killed first.`,
  );
  if (!ok) return;
  try {
    notice("");
    const res = await api(`/api/runs/${encodeURIComponent(run.runId)}/${what}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    await refresh();
    if (what === "respawn" && res && res.runId) follow(res);
  } catch (e) {
    notice(`${what} failed: ${e.message}${e.hint ? ` — ${e.hint}` : ""}`);
  }
}

/** The start form's workspaces: those the fleet serves and that are there. */
function renderStartWorkspaces() {
  const sel = $("start-ws");
  const had = sel.value;
  sel.replaceChildren(
    ...state.workspaces
      .filter((w) => w.health !== "gone")
      .map((w) => el("option", { value: w.hash }, w.root)),
  );
  if (had) sel.value = had;
}

/** Start a run from the form (as `ariel-spawn --detach`): its views, or the refusal said. */
async function startRun(ev) {
  ev.preventDefault();
  const hash = $("start-ws").value;
  const argv = $("start-argv")
    .value.trim()
    .split(/\s+/)
    .filter((w) => w !== "");
  if (!hash || argv.length === 0) return;
  const sandbox = $("start-sandbox").checked;
  const body = {
    argv,
    ...($("start-source").value.trim() ? { source: $("start-source").value.trim() } : {}),
    ...($("start-name").value.trim() ? { name: $("start-name").value.trim() } : {}),
    isolate: $("start-isolate").checked,
    sandbox,
    ...(sandbox ? { sandboxNet: $("start-net").value } : {}),
  };
  try {
    notice("");
    const runs = await api(`/api/workspaces/${encodeURIComponent(hash)}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    $("start-argv").value = "";
    await refresh();
    if (runs.length === 1) follow(runs[0]);
  } catch (e) {
    notice(`start failed: ${e.message}${e.hint ? ` — ${e.hint}` : ""}`);
  }
}

function connect() {
  const on = {
    open: () => {
      $("live").textContent = "live";
      scheduleRefresh();
    },
    error: () => {
      $("live").textContent = "reconnecting";
    },
  };
  // agent.tool: a run's last tool, as its agent reports it; agent.notice: why it waits, in its words.
  const names = [
    "run.started",
    "run.state",
    "run.exited",
    "run.lost",
    "task.state",
    "run.attention",
    "agent.tool",
    "agent.notice",
  ];
  for (const name of names) on[name] = scheduleRefresh;
  state.events = openStream(`/api/events/stream?event=${names.join(",")}`, on);
}

/** Load the fleet and follow it (again after a token was entered). */
function start() {
  document.body.classList.remove("locked");
  $("auth").hidden = true;
  notice("");
  refresh();
  connect();
  // A run whose owner died without a word becomes "lost" only when read again.
  state.poll = setInterval(refresh, 5000);
  state.runsPoll = setInterval(refreshRuns, RUNS_POLL_MS);
  state.ticker = setInterval(tick, 1000);
}

/** Stop everything and ask for the token (`why` when one was refused). */
function askToken(why) {
  sessionStorage.removeItem(TOKEN_KEY);
  for (const s of [state.events, state.log]) s?.close();
  state.events = state.log = null;
  for (const t of [state.poll, state.runsPoll, state.ticker]) clearInterval(t);
  clearTimeout(state.timer);
  document.body.classList.add("locked");
  $("live").textContent = "token needed";
  if (why) notice(why);
  $("auth").hidden = false;
  $("token").value = "";
  $("token").focus();
}

document.addEventListener("DOMContentLoaded", () => {
  $("state-filter").addEventListener("change", renderRuns);
  $("start-form").addEventListener("submit", startRun);
  $("start-sandbox").addEventListener("change", () => {
    $("start-net").disabled = !$("start-sandbox").checked;
  });
  $("auth").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const token = $("token").value.trim();
    if (token === "") return;
    sessionStorage.setItem(TOKEN_KEY, token);
    $("token").value = "";
    start();
  });
  if (NEEDS_TOKEN && !sessionStorage.getItem(TOKEN_KEY)) askToken();
  else start();
});
