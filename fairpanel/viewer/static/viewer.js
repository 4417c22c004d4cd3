"use strict";
// The served transcripts page: asks the viewer's JSON endpoints (fairpanel/viewer/_server.py)
// for one page of trials at a time. Filter state lives in the URL hash (docs/transcripts.md).
// Every text from the run is untrusted: it only ever reaches the page through textContent.
(() => {
  const KEYS = ["category", "identity", "arm", "treatment", "panel", "judge", "protocol", "status",
    "outcome", "q", "trial", "page"];
  const OUT_NAMES = { 1: "flipped", 2: "moved", 4: "parse failure" };
  const METRICS = ["creativity", "accuracy", "efficiency", "reliability"];
  let OPTIONS = null, SELECTS = [], TOTAL = 0, drawn = 0;
  const s = (v) => (v === null || v === undefined ? "" : String(v));
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent, ...children) {
    for (const c of children) parent.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    return parent;
  }
  function state() {
    const st = {};
    for (const [k, v] of new URLSearchParams(location.hash.slice(1))) if (KEYS.includes(k) && v) st[k] = v;
    return st;
  }
  function setState(st) {
    const p = new URLSearchParams();
    for (const k of KEYS) if (st[k]) p.set(k, st[k]);
    location.hash = p.toString();
  }
  async function ask(route, st) {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(st || {})) p.set(k, v);
    const reply = await fetch(`api/${route}?${p}`, { credentials: "same-origin", cache: "no-store" });
    if (!reply.ok) throw new Error(`${route}: ${reply.status}`);
    return reply.json();
  }
  function verdictText(t, winner) {
    if (!winner) return "none";
    const side = winner === "A" ? "A" : "B";
    return `${winner} (answer #${s(t["resp" + side])}, ${s(t["ident" + side])})`;
  }
  function twinBox(title, twin, me) {
    const box = el("div", "twin");
    add(box, el("strong", null, title));
    if (!twin) return add(box, el("div", "meta", "not in this run"));
    const link = el("a", null, twin.key);
    link.href = "#trial=" + encodeURIComponent(twin.key);
    add(box, " ", link);
    add(box, el("div", null, `labels: A ${s(twin.identA)} · B ${s(twin.identB)}`));
    add(box, el("div", null, `order: A answer #${s(twin.respA)} · B answer #${s(twin.respB)}`));
    add(box, el("div", null, "verdict: " + verdictText(twin, twin.winner)));
    if (me && me.fullKey !== twin.fullKey) {
      const changed = [];
      const labelOf = (t, r) => (t.respA === r ? t.identA : t.identB);
      if (labelOf(twin, me.respA) !== me.identA || labelOf(twin, me.respB) !== me.identB) changed.push("labels");
      if (twin.respA !== me.respA) changed.push("order");
      const won = (t) => (t.winner === "A" ? t.respA : t.winner === "B" ? t.respB : -1);
      if (won(twin) !== won(me)) changed.push("verdict (winning answer)");
      add(box, el("div", "changed", "changed: " + (changed.join(", ") || "nothing")));
    }
    return box;
  }
  function candidate(t, side) {
    const box = el("div", "cand");
    const head = el("div", "meta");
    add(head, el("strong", null, side), " · label ", el("mark", null, s(t["ident" + side])),
      ` · author "${s(t["auth" + side])}" · answer #${s(t["resp" + side])}`);
    return add(box, head, el("pre", "text", s(t["cand" + side])));
  }
  function scoresText(t, u) {
    if (u.scores.every((x) => x === null)) return "";
    const v = u.scores.map((x) => (x === null ? "–" : String(x)));
    if (t.protocol === "single") return v.slice(0, 4).join("/");
    return `A ${v.slice(0, 4).join("/")} · B ${v.slice(4).join("/")}`;
  }
  function consensusText(scores) {
    if (!scores || typeof scores !== "object") return "";
    const parts = [];
    for (const side of ["A", "B"]) {
      const v = scores[side];
      if (v && typeof v === "object")
        parts.push(`${side} ` + METRICS.map((m) => (typeof v[m] === "number" ? String(Math.round(v[m] * 100) / 100) : "–")).join("/"));
    }
    return parts.join(" · ");
  }
  function turnsTable(t) {
    const table = el("table", "turns");
    const head = el("tr");
    for (const h of ["round", "kind", "judge", "verdict", "scores (" + METRICS.join("/") + ")", "reason", "parse", "attempts"])
      add(head, el("th", null, h));
    add(table, add(el("thead"), head));
    const body = el("tbody");
    table.appendChild(body);
    for (const u of t.turns) {
      const row = el("tr");
      row.dataset.judge = s(u.judge);
      add(row, el("td", null, u.round), el("td", null, s(u.kind)), el("td", null, s(u.judge)),
        el("td", null, u.verdict === null ? "" : u.verdict === 0 ? "A" : "B"), el("td", null, scoresText(t, u)));
      const reason = el("td", "reason", s(u.reason));
      add(reason, add(el("details"), el("summary", null, "raw text"), el("pre", "raw", s(u.raw))));
      add(row, reason, el("td", u.perr ? "err" : null, u.perr ? s(u.perr) : "ok"),
        el("td", null, u.attempts > 1 ? `${u.attempts} (${u.attempts - 1} re-ask)` : u.attempts));
      body.appendChild(row);
    }
    return table;
  }
  function card(t) {
    const art = el("article", "trial");
    art.dataset.key = t.key;
    art.dataset.out = t.out;
    const h = el("h2", null, "Trial " + t.key);
    for (const bit of [1, 2, 4]) if (t.out & bit) add(h, el("span", "badge " + OUT_NAMES[bit].split(" ")[0], OUT_NAMES[bit]));
    add(art, h);
    const meta = [s(t.protocol), s(t.category), "arm " + s(t.arm), "treatment " + s(t.treatment),
      "scenario " + s(t.scenario), "status " + s(t.status)];
    if (t.panel) meta.unshift("panel " + t.panel);
    add(art, el("div", "meta", meta.join(" · ")));
    add(art, el("h3", null, "Task"), el("pre", "task", s(t.task) || "(not stored in this run)"));
    const cands = add(el("div", "cands"), candidate(t, "A"));
    if (t.candB !== null || t.identB !== null) cands.appendChild(candidate(t, "B"));
    add(art, cands, el("h3", null, "Judges"), turnsTable(t));
    const cs = consensusText(t.cscores);
    add(art, el("p", "consensus", `Consensus: winner ${verdictText(t, t.winner)}` + (cs ? ` · scores ${cs}` : "")));
    if (t.protocol === "pair") {
      add(art, add(el("div", "twins"), twinBox("this trial", t, null), twinBox("label-swapped twin", t.labelTwin, t),
        twinBox("order-swapped twin", t.orderTwin, t)));
    }
    return art;
  }
  function buildForm(st, counts) {
    const form = document.getElementById("filters");
    form.replaceChildren();
    for (const name of SELECTS) {
      const values = OPTIONS[name] || [];
      if (name === "panel" && !values.length) continue;
      const label = el("label", null, name);
      const select = el("select");
      select.name = name;
      const by = counts ? counts.by[name] || {} : null;
      for (const value of ["", ...values]) {
        const shown = value ? (by ? `${value} (${by[value] || 0})` : value) : "(all)";
        const option = el("option", null, shown);
        option.value = value;
        select.appendChild(option);
      }
      select.value = st[name] || "";
      add(form, add(label, select));
    }
    const q = el("input");
    q.type = "search";
    q.name = "q";
    q.value = st.q || "";
    q.placeholder = "search texts";
    add(form, add(el("label", null, "search"), q));
  }
  async function render() {
    const ticket = ++drawn;
    const st = state();
    document.body.dataset.rendered = "no";
    const count = document.getElementById("count");
    if (OPTIONS === null) {
      const found = await ask("options");
      OPTIONS = found.options;
      SELECTS = found.selects;
      TOTAL = found.total;
    }
    buildForm(st, null);
    if (st.q) count.textContent = "Searching…";
    const found = await ask("page", st);
    if (ticket !== drawn) return;
    count.dataset.matches = found.matches;
    count.textContent = `${found.matches} of ${found.total} trials · page ${found.page} of ${found.pages}`;
    for (const [id, to] of [["prev", found.page - 1], ["next", found.page + 1]]) {
      const b = document.getElementById(id);
      b.disabled = to < 1 || to > found.pages;
      b.dataset.to = to;
    }
    const list = document.getElementById("trials");
    list.replaceChildren();
    for (const t of found.trials) list.appendChild(card(t));
    if (!found.trials.length) list.appendChild(el("p", "empty", "No trial matches these filters."));
    document.body.dataset.rendered = "yes";
    const counts = await ask("counts", st);
    if (ticket === drawn) {
      buildForm(st, counts);
      document.body.dataset.counted = "yes";
    }
  }
  function draw() {
    render().catch((e) => {
      document.getElementById("count").textContent = "The viewer did not answer: " + e.message;
      document.body.dataset.rendered = "error";
    });
  }
  for (const id of ["prev", "next"]) {
    document.getElementById(id).addEventListener("click", (e) => {
      const st = state();
      st.page = e.currentTarget.dataset.to;
      setState(st);
    });
  }
  const form = document.getElementById("filters");
  form.addEventListener("change", () => {
    const next = {};
    for (const field of form.elements) if (field.name && field.value) next[field.name] = field.value;
    setState(next);
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  window.addEventListener("hashchange", draw);
  draw();
})();
