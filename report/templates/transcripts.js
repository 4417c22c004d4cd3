"use strict";
// The transcripts page. Data: the JSON document in #transcripts-data (see report/_transcripts_data.py).
// Filter state lives in the URL hash (docs/transcripts.md). Every text from the run is untrusted:
// it only ever reaches the page through textContent, never as markup.
(() => {
  const D = JSON.parse(document.getElementById("transcripts-data").textContent);
  const S = D.s, T = D.t, U = D.u, N = T.key.length, PAGE = 50;
  const SELECTS = ["category", "identity", "arm", "treatment", "panel", "judge", "protocol", "outcome"];
  const KEYS = [...SELECTS, "q", "trial", "page"];
  const OUT = { flipped: 1, moved: 2, parse: 4 };
  const OUT_NAMES = { 1: "flipped", 2: "moved", 4: "parse failure" };
  const str = (i) => (i < 0 ? "" : S[i]);
  // The judges' raw texts: gzipped JSON in #transcripts-raw, inflated once, after the first draw.
  let RAW = null;
  const rawReady = (async () => {
    const bytes = Uint8Array.from(atob(document.getElementById("transcripts-raw").textContent.trim()),
      (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    RAW = JSON.parse(await new Response(stream).text());
    for (const pre of document.querySelectorAll("pre.raw[data-raw]")) pre.textContent = RAW[pre.dataset.raw];
  })();
  const raw = (i) => (i < 0 ? "" : RAW === null ? "(loading…)" : RAW[i]);
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
  function distinct(columns) {
    const seen = new Set();
    for (const col of columns) for (const i of col) if (i >= 0) seen.add(S[i]);
    return [...seen].sort();
  }
  const OPTIONS = {
    category: distinct([T.category]),
    identity: distinct([T.identA, T.identB]),
    arm: distinct([T.arm]),
    treatment: distinct([T.treatment]),
    panel: distinct([T.panel]),
    judge: distinct([U.judge]),
    protocol: distinct([T.protocol]),
    outcome: Object.keys(OUT),
  };
  const indexOf = new Map();
  const idx = (text) => {
    if (!indexOf.size) S.forEach((s, i) => indexOf.set(s, i));
    return indexOf.has(text) ? indexOf.get(text) : -2;
  };
  function matches(st) {
    const tests = [];
    for (const [name, col] of [["category", T.category], ["arm", T.arm], ["treatment", T.treatment],
      ["panel", T.panel], ["protocol", T.protocol]]) {
      if (st[name]) { const want = idx(st[name]); tests.push((i) => col[i] === want); }
    }
    if (st.identity) {
      const want = idx(st.identity);
      tests.push((i) => T.identA[i] === want || T.identB[i] === want);
    }
    if (st.judge) {
      const want = idx(st.judge);
      tests.push((i) => { for (let u = T.t0[i]; u < T.t0[i + 1]; u++) if (U.judge[u] === want) return true; return false; });
    }
    if (st.outcome) { const bit = OUT[st.outcome] || 0; tests.push((i) => (T.out[i] & bit) !== 0); }
    if (st.trial) { const p = st.trial.toLowerCase(); tests.push((i) => S[T.key[i]].startsWith(p)); }
    if (st.q) {
      const q = st.q.toLowerCase();
      const hit = new Uint8Array(S.length);
      S.forEach((s, i) => { if (s.toLowerCase().includes(q)) hit[i] = 1; });
      const h = (i) => i >= 0 && hit[i] === 1;
      const rawHit = new Uint8Array(RAW.length);
      RAW.forEach((s, i) => { if (s.toLowerCase().includes(q)) rawHit[i] = 1; });
      tests.push((i) => {
        for (const col of [T.key, T.task, T.candA, T.candB, T.identA, T.identB, T.authA, T.authB, T.scenario])
          if (h(col[i])) return true;
        for (let u = T.t0[i]; u < T.t0[i + 1]; u++) if (h(U.reason[u]) || rawHit[U.raw[u]] === 1 || h(U.perr[u])) return true;
        return false;
      });
    }
    const found = [];
    for (let i = 0; i < N; i++) if (tests.every((t) => t(i))) found.push(i);
    return found;
  }
  function verdictText(i, winnerIndex) {
    const w = str(winnerIndex);
    if (!w) return "none";
    const side = w === "A" ? "A" : "B";
    return `${w} (answer #${T["resp" + side][i]}, ${str(T["ident" + side][i])})`;
  }
  function twinBox(title, i, me) {
    const box = el("div", "twin");
    add(box, el("strong", null, title));
    if (i < 0) return add(box, el("div", "meta", "not in this run"));
    const link = el("a", null, str(T.key[i]));
    link.href = "#trial=" + encodeURIComponent(str(T.key[i]));
    add(box, " ", link);
    add(box, el("div", null, `labels: A ${str(T.identA[i])} · B ${str(T.identB[i])}`));
    add(box, el("div", null, `order: A answer #${T.respA[i]} · B answer #${T.respB[i]}`));
    add(box, el("div", null, "verdict: " + verdictText(i, T.winner[i])));
    if (me >= 0 && me !== i) {
      const changed = [];
      const labelOf = (t, r) => (T.respA[t] === r ? T.identA[t] : T.identB[t]);
      if (labelOf(i, T.respA[me]) !== T.identA[me] || labelOf(i, T.respB[me]) !== T.identB[me])
        changed.push("labels");
      if (T.respA[i] !== T.respA[me]) changed.push("order");
      const won = (t) => (str(T.winner[t]) === "A" ? T.respA[t] : str(T.winner[t]) === "B" ? T.respB[t] : -1);
      if (won(i) !== won(me)) changed.push("verdict (winning answer)");
      add(box, el("div", "changed", "changed: " + (changed.join(", ") || "nothing")));
    }
    return box;
  }
  function candidate(i, side) {
    const box = el("div", "cand");
    const head = el("div", "meta");
    add(head, el("strong", null, side), " · label ", el("mark", null, str(T["ident" + side][i])),
      ` · author "${str(T["auth" + side][i])}" · answer #${T["resp" + side][i]}`);
    return add(box, head, el("pre", "text", str(T["cand" + side][i])));
  }
  function scoresText(i, u) {
    const v = U.scores.slice(8 * u, 8 * u + 8).map((x) => (x < 0 ? "–" : String(x)));
    if (U.scores.slice(8 * u, 8 * u + 8).every((x) => x < 0)) return "";
    if (str(T.protocol[i]) === "single") return v.slice(0, 4).join("/");
    return `A ${v.slice(0, 4).join("/")} · B ${v.slice(4).join("/")}`;
  }
  function turnsTable(i) {
    const table = el("table", "turns");
    const head = el("tr");
    for (const h of ["round", "kind", "judge", "verdict", "scores (" + D.metrics.join("/") + ")", "reason", "parse", "attempts"])
      add(head, el("th", null, h));
    add(table, add(el("thead"), head));
    const body = el("tbody");
    table.appendChild(body);
    for (let u = T.t0[i]; u < T.t0[i + 1]; u++) {
      const row = el("tr");
      row.dataset.judge = str(U.judge[u]);
      const v = U.verdict[u];
      add(row, el("td", null, U.round[u]), el("td", null, str(U.kind[u])), el("td", null, str(U.judge[u])),
        el("td", null, v < 0 ? "" : v === 0 ? "A" : "B"), el("td", null, scoresText(i, u)));
      const reason = el("td", "reason", str(U.reason[u]));
      const text = el("pre", "raw", raw(U.raw[u]));
      text.dataset.raw = U.raw[u];
      add(reason, add(el("details"), el("summary", null, "raw text"), text));
      add(row, reason, el("td", U.perr[u] >= 0 ? "err" : null, U.perr[u] >= 0 ? str(U.perr[u]) : "ok"),
        el("td", null, U.attempts[u] > 1 ? `${U.attempts[u]} (${U.attempts[u] - 1} re-ask)` : U.attempts[u]));
      body.appendChild(row);
    }
    return table;
  }
  function card(i) {
    const art = el("article", "trial");
    art.dataset.key = str(T.key[i]);
    art.dataset.out = T.out[i];
    const h = el("h2", null, "Trial " + str(T.key[i]));
    for (const bit of [1, 2, 4]) if (T.out[i] & bit) add(h, el("span", "badge " + OUT_NAMES[bit].split(" ")[0], OUT_NAMES[bit]));
    add(art, h);
    const meta = [str(T.protocol[i]), str(T.category[i]), "arm " + str(T.arm[i]), "treatment " + str(T.treatment[i]),
      "scenario " + str(T.scenario[i]), "status " + str(T.status[i])];
    if (T.panel[i] >= 0) meta.unshift("panel " + str(T.panel[i]));
    add(art, el("div", "meta", meta.join(" · ")));
    add(art, el("h3", null, "Task"), el("pre", "task", str(T.task[i]) || "(not stored in this run)"));
    const cands = add(el("div", "cands"), candidate(i, "A"));
    if (T.candB[i] >= 0 || T.identB[i] >= 0) cands.appendChild(candidate(i, "B"));
    add(art, cands, el("h3", null, "Judges"), turnsTable(i));
    add(art, el("p", "consensus", `Consensus: winner ${verdictText(i, T.winner[i])}` +
      (str(T.cscores[i]) ? ` · scores ${str(T.cscores[i])}` : "")));
    if (str(T.protocol[i]) === "pair") {
      add(art, add(el("div", "twins"), twinBox("this trial", i, -1), twinBox("label-swapped twin", T.labelTwin[i], i),
        twinBox("order-swapped twin", T.orderTwin[i], i)));
    }
    return art;
  }
  function buildForm(st) {
    const form = document.getElementById("filters");
    form.replaceChildren();
    for (const name of SELECTS) {
      if (name === "panel" && !OPTIONS.panel.length) continue;
      const label = el("label", null, name);
      const select = el("select");
      select.name = name;
      for (const value of ["", ...OPTIONS[name]]) {
        const option = el("option", null, value || "(all)");
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
    const st = state();
    document.body.dataset.rendered = "no";
    if (st.q && RAW === null) await rawReady;
    buildForm(st);
    const found = matches(st);
    const pages = Math.max(1, Math.ceil(found.length / PAGE));
    const page = Math.min(pages, Math.max(1, parseInt(st.page || "1", 10) || 1));
    const count = document.getElementById("count");
    count.dataset.matches = found.length;
    count.textContent = `${found.length} of ${N} trials · page ${page} of ${pages}`;
    for (const [id, to] of [["prev", page - 1], ["next", page + 1]]) {
      const b = document.getElementById(id);
      b.disabled = to < 1 || to > pages;
      b.dataset.to = to;
    }
    const list = document.getElementById("trials");
    list.replaceChildren();
    for (const i of found.slice((page - 1) * PAGE, page * PAGE)) list.appendChild(card(i));
    if (!found.length) list.appendChild(el("p", "empty", "No trial matches these filters."));
    document.body.dataset.rendered = "yes";
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
  window.addEventListener("hashchange", render);
  render();
})();
