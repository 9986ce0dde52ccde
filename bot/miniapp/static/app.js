// The Mini App sheet: draws the sheet the API returns, sends every tap as one edit with the
// version it drew (compare-and-set), and posts rolls to the campaign's chat.
// No framework, no build step: the whole page is this file, app.css and index.html.
"use strict";

(function () {
  // ----- Telegram's launch data: the WebApp object when present, else the URL fragment ------
  const hash = new URLSearchParams(location.hash.slice(1));
  const webApp = window.Telegram && window.Telegram.WebApp;
  const initData = (webApp && webApp.initData) || hash.get("tgWebAppData") || "";
  let theme = (webApp && webApp.themeParams) || null;
  if (!theme) {
    try { theme = JSON.parse(hash.get("tgWebAppThemeParams") || "null"); } catch (e) { theme = null; }
  }
  for (const [key, value] of Object.entries(theme || {})) {
    if (typeof value === "string") {
      document.documentElement.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), value);
    }
  }
  function postEvent(type, data) {
    const body = JSON.stringify(data || {});
    if (window.TelegramWebviewProxy) window.TelegramWebviewProxy.postEvent(type, body);
    else if (window.external && window.external.notify) {
      window.external.notify(JSON.stringify({ eventType: type, eventData: data || {} }));
    } else if (window.parent !== window) {
      window.parent.postMessage(JSON.stringify({ eventType: type, eventData: data || {} }), "*");
    }
  }
  if (webApp && webApp.ready) { webApp.ready(); webApp.expand && webApp.expand(); }
  else { postEvent("web_app_ready"); postEvent("web_app_expand"); }

  const query = new URLSearchParams(location.search);
  const campaign = query.get("c") || "";
  const $ = (id) => document.getElementById(id);
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (v !== false && v !== null && v !== undefined) node.setAttribute(k, v === true ? "" : v);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  };

  let state = null; // the sheet as the API drew it
  let whose = { user: "", npc: "" };
  let picked = [];
  let kind = "B";

  async function api(method, path, body) {
    const params = new URLSearchParams();
    if (campaign) params.set("campaign", campaign);
    if (method === "GET") {
      if (whose.user) params.set("user", whose.user);
      if (whose.npc) params.set("npc", whose.npc);
    }
    const url = "api/" + path + (params.toString() ? "?" + params : "");
    const options = { method, headers: { "X-Telegram-Init-Data": initData } };
    if (body) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(Object.assign({ campaign, user: whose.user || null,
        npc: whose.npc || null }, body));
    }
    const response = await fetch(url, options);
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    return { status: response.status, data: data || {} };
  }

  function note(text, bad) {
    const box = $("note");
    box.textContent = text;
    box.className = bad ? "bad" : "";
    box.hidden = !text;
  }

  async function load() {
    const { status, data } = await api("GET", "sheet");
    if (status !== 200) { note("⛔ " + (data.message || data.error || status), true); return; }
    state = data;
    draw();
  }

  // The part of a sheet a tap changes: when a race was lost to an edit elsewhere (a /set in
  // the chat) that left this part as it was, the tap still means the same and is sent again
  // on the newest sheet, so both changes stand; otherwise the player sees the newest sheet.
  function partOf(sheet, op) {
    if (op.op === "set") {
      for (const g of sheet.groups) for (const t of g.traits) if (t.code === op.trait) return t.value;
      if (op.trait === "willpower") return sheet.willpower && sheet.willpower.permanent;
      if (sheet.d6) return JSON.stringify(sheet.d6);
    }
    if (op.op === "wound" || op.op === "heal") return JSON.stringify(sheet.health);
    if (op.what === "willpower") return JSON.stringify(sheet.willpower);
    if (op.what === "quintessence" || op.what === "paradox") return JSON.stringify(sheet.wheel);
    if (op.what === "blood") return sheet.blood;
    return JSON.stringify(sheet.d6 || null);
  }

  // Taps are sent one after another, each on the sheet the previous one left, so quick taps
  // all count and a roll pressed right after a tap rolls the traits as tapped.
  let queue = Promise.resolve();
  function queued(work) {
    queue = queue.then(work, work).catch((error) => note("⛔ " + error, true));
    return queue;
  }

  // Another player's sheet, read only: nothing on it is sent (the API would refuse it anyway).
  function edit(op) { return state && state.read_only ? queue : queued(() => send(op)); }

  async function send(op) {
    if (!state) return;
    let retried = false;
    for (;;) {
      const { status, data } = await api("POST", "edit", Object.assign({ version: state.version }, op));
      if (status === 409) {
        const same = !retried && partOf(state, op) === partOf(data.sheet, op);
        state = data.sheet;
        note(state.labels.updated);
        if (same) { retried = true; continue; }
      } else if (status === 200) { state = data.sheet; if (!retried) note(""); }
      else if (status === 422) { note(state.labels.refused, true); }
      else { note("⛔ " + (data.message || data.error || status), true); }
      break;
    }
    draw();
  }

  // ----- drawing ---------------------------------------------------------------------------
  function dots(code, name, value, min, max, onTap, rollable) {
    const row = el("div", { class: "trait", "data-trait": name, "data-value": String(value), "data-code": code });
    const label = el("button", { type: "button", class: "pick" + (picked.includes(code) ? " on" : ""),
      "data-pick": true, text: name, onclick: () => togglePick(code, rollable) });
    const holder = el("div", { class: max > 5 ? "dots ten" : "dots" });
    if (min === 0) {
      holder.append(el("button", { type: "button", class: "dot zero", "data-dot": "0",
        "aria-label": name + " 0", onclick: () => onTap(0) }));
    }
    for (let n = 1; n <= max; n++) {
      holder.append(el("button", { type: "button", class: "dot" + (n <= value ? " on" : ""),
        "data-dot": String(n), "aria-label": name + " " + n, onclick: () => onTap(n) }));
    }
    row.append(label, holder);
    return row;
  }

  function togglePick(code, rollable) {
    if (!rollable || !ownSheet()) return;
    if (picked.includes(code)) picked = picked.filter((c) => c !== code);
    else picked = picked.concat([code]).slice(state.system === "d6" ? -5 : -2);
    draw();
    odds();
  }

  function ownSheet() { return !whose.user && !whose.npc; }

  function drawWheel(wheel, L) {
    const size = wheel.size, r = 90, c = 110, ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 220 220");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `${L.quintessence} ${wheel.quintessence}, ${L.paradox} ${wheel.paradox}`);
    for (let i = 0; i < size; i++) {
      const a0 = (i / size) * 2 * Math.PI - Math.PI / 2, a1 = ((i + 1) / size) * 2 * Math.PI - Math.PI / 2;
      const p = (a, rad) => [c + rad * Math.cos(a), c + rad * Math.sin(a)];
      const [x0, y0] = p(a0, r), [x1, y1] = p(a1, r), [x2, y2] = p(a1, r - 28), [x3, y3] = p(a0, r - 28);
      const path = document.createElementNS(ns, "path");
      path.setAttribute("d", `M${x0},${y0} A${r},${r} 0 0 1 ${x1},${y1} L${x2},${y2} A${r - 28},${r - 28} 0 0 0 ${x3},${y3} Z`);
      const paradox = i >= size - wheel.paradox;
      path.setAttribute("class", "seg" + (i < wheel.quintessence ? " q" : paradox ? " p" : ""));
      svg.append(path);
    }
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", c); text.setAttribute("y", c + 6); text.setAttribute("text-anchor", "middle");
    text.textContent = `${wheel.quintessence} / ${wheel.paradox}`;
    svg.append(text);
    svg.addEventListener("click", () => edit({ op: "spend", what: "quintessence" }));
    const box = el("div", { class: "wheel", "data-wheel": true });
    box.append(svg,
      el("div", { class: "pair" }, el("span", { text: L.quintessence }),
        el("button", { type: "button", class: "small", text: "−", "data-spend": "quintessence",
          onclick: () => edit({ op: "spend", what: "quintessence" }) }),
        el("button", { type: "button", class: "small", text: "+",
          onclick: () => edit({ op: "gain", what: "quintessence" }) })),
      el("div", { class: "pair" }, el("span", { text: L.paradox }),
        el("button", { type: "button", class: "small", text: "−",
          onclick: () => edit({ op: "spend", what: "paradox" }) }),
        el("button", { type: "button", class: "small", text: "+",
          onclick: () => edit({ op: "gain", what: "paradox" }) })));
    return box;
  }

  function drawHealth(health, L) {
    const box = el("div", { class: "group health", "data-health": true });
    box.append(el("h2", { text: L.health }));
    const kinds = el("div", { class: "kinds" });
    for (const [code, label] of [["B", L.bashing], ["L", L.lethal], ["A", L.aggravated]]) {
      kinds.append(el("button", { type: "button", class: kind === code ? "on" : "",
        text: label, onclick: () => { kind = code; draw(); } }));
    }
    box.append(kinds);
    health.boxes.forEach((mark, i) => {
      const penalty = health.penalties[i];
      box.append(el("div", { class: "level" },
        el("span", { text: health.levels[i] }),
        el("small", { text: penalty === null ? "" : String(penalty) }),
        el("button", { type: "button", class: "box" + (mark ? " on" : ""), "data-box": String(i + 1),
          "data-mark": mark, text: mark === "L" ? "X" : mark === "A" ? "*" : mark ? "/" : "",
          onclick: () => edit(mark ? { op: "heal" } : { op: "wound", kind }) })));
    });
    box.append(el("div", { class: "penalty", "data-penalty": String(health.penalty),
      text: health.can_act ? `${L.penalty}: ${health.penalty}` : L.cannot_act }));
    return box;
  }

  function drawPoints(title, attr, current, top, spend, gain) {
    const box = el("div", { class: "group" });
    box.append(el("h2", { text: title }));
    const boxes = el("div", { class: "boxes", [attr]: String(current) });
    for (let n = 1; n <= top; n++) {
      boxes.append(el("button", { type: "button", class: "box" + (n <= current ? " on" : ""),
        "data-point": String(n), onclick: () => edit(n <= current ? spend : gain) }));
    }
    box.append(boxes);
    return box;
  }

  function draw() {
    const s = state, L = s.labels, main = $("sheet");
    document.documentElement.lang = s.lang;
    document.title = "📜 " + s.name;
    $("name").textContent = s.read_only ? s.read_only_note : s.name;
    main.textContent = "";
    main.className = s.editable === false || s.read_only ? "readonly" : "";
    const set = (code) => (n) => edit({ op: "set", trait: code, value: n });
    for (const group of s.groups) {
      const box = el("div", { class: "group" }, el("h2", { text: group.title }));
      for (const t of group.traits) box.append(dots(t.code, t.name, t.value, t.min, t.max, set(t.code), t.rollable));
      main.append(box);
    }
    if (s.willpower) {
      const w = s.willpower;
      const box = el("div", { class: "group" }, el("h2", { text: w.name }));
      box.append(dots("willpower", w.name, w.permanent, 1, 10, set("willpower"), true));
      const boxes = el("div", { class: "boxes", "data-willpower": String(w.current) });
      for (let n = 1; n <= Math.max(w.permanent, 1); n++) {
        boxes.append(el("button", { type: "button", class: "box" + (n <= w.current ? " on" : ""),
          "data-point": String(n), "aria-label": w.name + " " + n,
          onclick: () => edit({ op: n <= w.current ? "spend" : "gain", what: "willpower" }) }));
      }
      box.append(boxes);
      main.append(box);
    }
    if (s.wheel) main.append(el("div", { class: "group" }, el("h2", { text: `${L.quintessence} / ${L.paradox}` }), drawWheel(s.wheel, L)));
    if (s.blood !== undefined) {
      main.append(drawPoints(L.blood, "data-blood", s.blood, Math.max(10, s.blood),
        { op: "spend", what: "blood" }, { op: "gain", what: "blood" }));
    }
    if (s.d6) {
      const d = s.d6;
      const powers = el("div", { class: "group" }, el("h2", { text: L.powers }));
      for (const p of d.powers) powers.append(dots(p.name, p.name, p.value, 0, 3, (n) => edit({ op: "power", name: p.name, value: n }), true));
      powers.append(dots("weakness", L.weakness, d.weakness, 0, 5, set("weakness"), false));
      main.append(powers);
      main.append(drawPoints(L.luck, "data-luck", d.luck, Math.max(3, d.luck), { op: "spend", what: "luck" }, { op: "set", trait: "luck", value: d.luck + 1 }));
      const wounds = el("div", { class: "group" }, el("h2", { text: L.wounds }));
      d.wounds.forEach((w, i) => wounds.append(el("button", { type: "button", class: "small", "data-wound": String(i),
        text: `${w.name} −${w.value} ✕`, onclick: () => edit({ op: "heal_wound", index: i }) })));
      const adds = el("div", { class: "pair" });
      for (const [kind, name] of Object.entries(d.kinds)) {
        adds.append(el("button", { type: "button", class: "small", "data-add-wound": kind,
          text: `+ ${name} −1`, onclick: () => edit({ op: "add_wound", kind, value: 1 }) }));
      }
      wounds.append(adds);
      main.append(wounds);
    }
    if (s.health) main.append(drawHealth(s.health, L));
    if (s.read_only) {
      // the dots and boxes stay as the values they show; every button that only edits goes
      main.querySelectorAll("button.small, .kinds, .pair").forEach((b) => b.remove());
      main.querySelectorAll("button").forEach((b) => { b.disabled = true; b.onclick = null; });
    }
    drawWhose(s);
    drawRoller(s);
  }

  function drawWhose(s) {
    const select = $("whose");
    select.hidden = !s.others.length;
    if (select.hidden) return;
    select.textContent = "";
    select.append(el("option", { value: "", text: s.labels.mine }));
    for (const o of s.others) {
      const value = o.npc ? "npc:" + o.npc : "user:" + o.user;
      const current = (whose.npc && "npc:" + whose.npc) || (whose.user && "user:" + whose.user) || "";
      select.append(el("option", { value, text: (o.npc ? "👤 " : "") + o.name, selected: value === current }));
    }
    select.onchange = () => {
      const [k, ...rest] = select.value.split(":");
      whose = { user: k === "user" ? rest.join(":") : "", npc: k === "npc" ? rest.join(":") : "" };
      picked = [];
      load();
    };
  }

  let rollId = null;
  function drawRoller(s) {
    const roller = $("roller");
    roller.hidden = !ownSheet();
    if (roller.hidden) return;
    const L = s.labels, d6 = s.system === "d6";
    // The d6 game: the measures required, the luck dice spent and the weakness take the
    // places of the difficulty, the threshold and Willpower.
    $("l-difficulty").textContent = d6 ? L.required : L.difficulty;
    $("l-threshold").textContent = d6 ? L.luck : L.threshold;
    $("l-wp").textContent = d6 ? L.weakness : (s.willpower ? s.willpower.name : "");
    const difficulty = $("difficulty"), threshold = $("threshold");
    const shape = d6 ? `d6:${s.d6.luck}` : "d10";
    if (difficulty.dataset.shape !== shape) {
      difficulty.dataset.shape = shape;
      difficulty.textContent = ""; threshold.textContent = "";
      const [low, high, chosen] = d6 ? [1, 5, 1] : [2, 10, s.default_difficulty];
      for (let n = low; n <= high; n++) difficulty.append(el("option", { value: n, text: n, selected: n === chosen }));
      for (let n = 0; n <= (d6 ? s.d6.luck : 5); n++) threshold.append(el("option", { value: n, text: n }));
      for (const control of [difficulty, threshold, $("wp")]) control.onchange = odds;
      $("roll").onclick = roll;
    }
    const names = {};
    for (const g of s.groups) for (const t of g.traits) names[t.code] = t.name;
    if (s.willpower) names.willpower = s.willpower.name;
    $("picked").textContent = picked.length ? picked.map((c) => names[c] || c).join(" + ") : L.pick;
    $("roll").textContent = "🎲 " + L.roll;
    $("roll").disabled = !picked.length;
  }

  function rollBody() {
    return { traits: picked, difficulty: Number($("difficulty").value),
      threshold: Number($("threshold").value), willpower: $("wp").checked };
  }

  async function odds() {
    const out = $("odds");
    if (!picked.length) { out.textContent = ""; return; }
    const asked = JSON.stringify(rollBody());
    const { status, data } = await api("POST", "odds", rollBody());
    if (asked !== JSON.stringify(rollBody())) return; // a newer choice is on its way
    if (status !== 200) { out.textContent = ""; return; }
    const L = state.labels, pct = (p) => (100 * p).toFixed(1) + "%";
    out.textContent = data.refused ? data.refused.replace(/<[^>]+>/g, "")
      : `${data.pool}${state.system === "d6" ? "d6" : "d10"} · ${(state.system === "d6" ? L.required : L.difficulty).toLowerCase()} ${data.difficulty} · ${L.success}: ${pct(data.success)} · ${state.system === "d6" ? L.fiasco : L.botch}: ${pct(data.botch)}`;
    out.dataset.success = data.success === undefined ? "" : String(data.success);
  }

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Array.from({ length: 4 }, () => Math.random().toString(16).slice(2, 10)).join("");
  }

  function roll() { return queued(rollNow); }

  async function rollNow() {
    if (!picked.length) return;
    rollId = rollId || newId(); // sent again after a network failure, it is the same roll
    const button = $("roll");
    button.disabled = true;
    try {
      const { status, data } = await api("POST", "roll", Object.assign({ request_id: rollId }, rollBody()));
      if (status === 200) { note(state.labels.posted); rollId = null; picked = []; draw(); $("odds").textContent = ""; }
      else note("⛔ " + (data.message || data.error || status), true);
    } catch (e) {
      note("⛔ " + e, true);
    } finally { button.disabled = !picked.length; }
  }

  load();
})();
