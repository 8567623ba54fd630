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
  events: null,
  timer: null,
  poll: null,
};

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
  return [el("br"), `kept (${r.kept.reason}): `, el("code", { class: "mono" }, r.kept.next)];
}

function renderRuns() {
  const filter = $("state-filter").value;
  const body = $("runs").tBodies[0];
  // A refresh replaces the rows: keep the keyboard focus on the same button (by its name).
  const focused = body.contains(document.activeElement)
    ? document.activeElement.getAttribute("aria-label")
    : null;
  body.replaceChildren();
  const runs = state.runs.filter((r) => !filter || r.state === filter || r.activity === filter);
  $("no-runs").hidden = runs.length > 0;
  $("runs").hidden = runs.length === 0;
  for (const r of runs) {
    const label = r.name || r.runId;
    const actions = el(
      "div",
      { class: "actions" },
      el("button", { type: "button", "aria-label": `Log of ${label}`, onclick: () => follow(r) }, "Log"),
      el(
        "button",
        { type: "button", class: "danger", "aria-label": `Kill ${label}`, onclick: () => act(r, "kill") },
        "Kill",
      ),
      el(
        "button",
        { type: "button", "aria-label": `Respawn ${label}`, onclick: () => act(r, "respawn") },
        "Respawn",
      ),
    );
    if (FINAL.has(r.state)) actions.children[1].disabled = true;
    const tr = el(
      "tr",
      { "data-run": r.runId, class: state.selected === r.runId ? "selected" : "" },
      r.name
        ? el("td", {}, el("strong", {}, r.name), el("br"), el("span", { class: "mono" }, r.runId))
        : el("td", { class: "mono" }, r.runId),
      el("td", {}, r.workspace.root),
      el("td", { class: "mono" }, r.argv.join(" ")),
      el(
        "td",
        {},
        el("span", { class: `state ${r.state}` }, r.state),
        r.activity ? el("span", { class: `activity ${r.activity}` }, r.activity) : "",
        ...keptNote(r),
      ),
      el("td", {}, r.startedAt ? new Date(r.startedAt).toLocaleTimeString() : "-"),
      el("td", {}, actions),
    );
    body.append(tr);
  }
  if (focused) {
    const again = [...body.querySelectorAll("button")].find((b) => b.getAttribute("aria-label") === focused);
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

async function refresh() {
  try {
    const fleet = await api("/api/fleet");
    $("host").textContent = fleet.host;
    state.workspaces = fleet.workspaces;
    const live = fleet.workspaces.filter((w) => w.health !== "gone");
    const [lists, tasks] = await Promise.all([
      Promise.all(live.map((w) => api(`/api/workspaces/${encodeURIComponent(w.hash)}/runs`))),
      loadTasks(live),
    ]);
    state.tasks = tasks;
    // The runs that wait for the user first, then newest first.
    const newest = (a, b) => ((a.startedAt || "") < (b.startedAt || "") ? 1 : -1);
    const waiting = (r) => (r.activity === "waiting" ? 0 : 1);
    state.runs = lists.flat().sort((a, b) => waiting(a) - waiting(b) || newest(a, b));
    renderWorkspaces();
    renderRuns();
    renderTasks();
    const sel = state.runs.find((r) => r.runId === state.selected);
    if (sel) setLogState(sel.state);
  } catch (e) {
    if (!(e instanceof Unauthorized)) notice(`Cannot load the fleet: ${e.message}`);
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
  const pane = el(
    "section",
    { class: "term-pane", "data-run": run.runId, "aria-label": `Terminal of ${label}` },
    el(
      "h3",
      {},
      el("span", {}, label),
      el(
        "button",
        {
          type: "button",
          "aria-label": `Close the terminal of ${label}`,
          onclick: () => closeTerminal(run.runId),
        },
        "Close",
      ),
    ),
    screen,
  );
  $("terms").append(pane);
  const term = new globalThis.Terminal({ cols: run.tty.cols, rows: run.tty.rows });
  term.open(screen);
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

function closeTerminal(runId) {
  const t = state.terms.get(runId);
  if (!t) return;
  t.stream.close();
  t.term.dispose();
  t.pane.remove();
  state.terms.delete(runId);
}

function follow(run) {
  if (run.tty && globalThis.Terminal) return openTerminal(run);
  if (state.log) state.log.close();
  state.selected = run.runId;
  renderRuns();
  const pre = $("log");
  pre.replaceChildren();
  $("log-run").textContent = run.runId;
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
  const names = ["run.started", "run.state", "run.exited", "run.lost", "task.state", "run.attention"];
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
}

/** Stop everything and ask for the token (`why` when one was refused). */
function askToken(why) {
  sessionStorage.removeItem(TOKEN_KEY);
  for (const s of [state.events, state.log]) s?.close();
  state.events = state.log = null;
  clearInterval(state.poll);
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
