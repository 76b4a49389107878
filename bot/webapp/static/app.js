/* Ochko (the game) — Telegram Mini App: the live table and the viewer's own hand.
 * Plain ES2020, no framework. Every server string goes in through textContent. */
(() => {
  "use strict";

  const tg = (window.Telegram && window.Telegram.WebApp) || null;
  const initData = (tg && tg.initData) || "";
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const root = document.documentElement;

  /* ---------- words ---------- */
  // Every word the page shows comes from the server, in the person's language: the state's
  // "labels" (the catalogs' app-* messages, LABELS in bot/webapp/view.py) and its texts. Until the
  // first state arrives the page shows no words at all, so none flashes in another language.
  let labels = {};
  const L = (key) => (labels[key] != null ? String(labels[key]) : "");

  /* ---------- where the API is and which table ---------- */
  const pageParams = new URLSearchParams(location.search);
  const CHAT = pageParams.get("chat");
  const THREAD = pageParams.get("thread");
  const base = (() => {
    const u = new URL(location.href);
    u.search = ""; u.hash = "";
    const last = u.pathname.split("/").pop();
    if (last && !last.includes(".")) u.pathname += "/"; // served at /app without the slash
    return u;
  })();
  const apiUrl = (path, extra) => {
    const u = new URL("api/" + path, base);
    if (CHAT != null && CHAT !== "") u.searchParams.set("chat", CHAT);
    if (THREAD != null && THREAD !== "") u.searchParams.set("thread", THREAD);
    if (extra) for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
    return u.toString();
  };

  /* ---------- small DOM helpers ---------- */
  const el = (tag, cls, text) => {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text != null) n.textContent = String(text);
    return n;
  };
  const setText = (node, text) => {
    const t = text == null ? "" : String(text);
    if (node.textContent !== t) node.textContent = t;
  };
  const show = (node, on) => { if (node.hidden === !!on) node.hidden = !on; };
  const fmt = (n) => {
    if (typeof n !== "number") return n == null ? "" : String(n);
    try { return n.toLocaleString(root.lang || undefined); } catch (_) { return String(n); }
  };

  /* ---------- theme ---------- */
  const applyScheme = () => {
    const scheme = tg && tg.colorScheme === "dark" ? "dark"
      : tg && tg.colorScheme === "light" ? "light"
      : (window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
    root.dataset.scheme = scheme;
  };
  applyScheme();

  /* ---------- haptics ---------- */
  const haptic = (kind, arg) => {
    const h = tg && tg.HapticFeedback;
    if (!h) return;
    try {
      if (kind === "notify" && typeof h.notificationOccurred === "function") h.notificationOccurred(arg);
      if (kind === "impact" && typeof h.impactOccurred === "function") h.impactOccurred(arg);
    } catch (_) { /* old clients */ }
  };

  /* ---------- cards ---------- */
  const SUITS = "♠♣♥♦";
  // The server's card: its code ("10H", "X1" for a joker) and its text as the chat writes it.
  const parseCard = (c) => {
    const text = String(c.text || c.code || "");
    if (text === "★") return { joker: true, rank: "★", suit: "" };
    const last = text.slice(-1);
    if (SUITS.includes(last) && text.length > 1) return { rank: text.slice(0, -1), suit: last };
    return { rank: text, suit: "" };
  };

  const makeCard = (c, size) => {
    if (c == null) {
      const n = el("div", "card back " + size);
      n.setAttribute("role", "img");
      n.setAttribute("aria-label", "🂠");
      return n;
    }
    if (c.dark) {
      const n = el("div", "card back dark " + size);
      n.appendChild(el("span", "q", "?"));
      n.setAttribute("role", "img");
      n.setAttribute("aria-label", "? " + L("dark_card"));
      n.title = L("dark_card");
      return n;
    }
    const p = parseCard(c);
    const n = el("div", "card face " + size + (c.red ? " red" : " black") + (p.joker ? " joker" : "") + ([...p.rank].length > 1 ? " r2" : ""));
    n.dataset.code = String(c.code == null ? "" : c.code);
    n.setAttribute("role", "img");
    n.setAttribute("aria-label", String(c.text || c.code || ""));
    const corner = el("span", "corner tl");
    corner.appendChild(el("span", "rk", p.rank));
    if (p.suit) corner.appendChild(el("span", "st", p.suit));
    n.appendChild(corner);
    n.appendChild(el("span", "pip", p.joker ? "★" : (p.suit || p.rank)));
    if (size === "big") {
      const c2 = corner.cloneNode(true);
      c2.className = "corner br";
      n.appendChild(c2);
    }
    return n;
  };
  const cardSig = (c) => (c == null ? "~" : c.dark ? "?" : String(c.code));

  /** Renders cards into box; cards that were not there before get the deal animation. */
  const renderCards = (box, cards, size, key) => {
    const sig = cards.map(cardSig);
    const prev = prevCards.get(key);
    const joined = sig.join(",");
    if (prev && prev.join(",") === joined && box.childElementCount === sig.length) return;
    box.replaceChildren();
    cards.forEach((c, i) => {
      const n = makeCard(c, size);
      if (prev && prev[i] !== sig[i] && !reduceMotion) {
        n.classList.add("deal");
        n.style.animationDelay = Math.min(i - firstNew(prev, sig), 4) * 70 + "ms";
      }
      box.appendChild(n);
    });
    box.style.setProperty("--n", String(Math.max(cards.length, 1)));
    if (size === "mini") box.style.setProperty("--ov", (cards.length <= 3 ? 2 : cards.length === 4 ? -3 : cards.length === 5 ? -7 : -10) + "px");
    prevCards.set(key, sig);
  };
  const firstNew = (prev, sig) => { let i = 0; while (i < sig.length && prev[i] === sig[i]) i++; return i; };
  const prevCards = new Map();
  const reduceMotion = !!(window.matchMedia && matchMedia("(prefers-reduced-motion: reduce)").matches);

  /* ---------- state ---------- */
  let current = null;          // last rendered state
  let shownVersion = -1;
  let clockOffset = 0;         // server - local, seconds
  let deadline = null;
  let lastTurnKey = null;
  let stopped = false;
  const pending = new Set();   // actions in flight

  const isStale = (s) => {
    if (!current || !s) return false;
    const g = s.game, cg = current.game;
    if (!g || !cg) return false;
    if (g.id !== cg.id) return false;
    return typeof g.version === "number" && g.version < shownVersion;
  };

  const render = (s) => {
    if (!s || typeof s !== "object" || stopped) return;
    current = s;
    if (s.labels && typeof s.labels === "object") labels = Object.assign({}, s.labels);
    if (s.lang) root.lang = String(s.lang);
    if (typeof s.server_time === "number") clockOffset = s.server_time - Date.now() / 1000;
    document.title = L("title");
    renderConn();

    renderAchievements(s);
    const g = s.game;
    if (!g) {
      shownVersion = -1; deadline = null; lastTurnKey = null;
      body.dataset.version = "0";
      body.classList.remove("my-turn");
      setText($("heading"), "🃏 " + L("title"));
      setText($("chat-title"), "");
      show($("chat-title"), false);
      setText($("empty-text"), L("no_game"));
      show($("empty"), true);
      show($("game"), false);
      renderCountdown();
      return;
    }
    show($("empty"), false);
    show($("game"), true);
    shownVersion = typeof g.version === "number" ? g.version : shownVersion;
    body.dataset.phase = String(g.phase || "");

    setText($("heading"), g.heading || L("title"));
    setText($("chat-title"), g.chat_title || "");
    show($("chat-title"), !!g.chat_title);

    renderBanker(g);
    renderSeats(g);
    renderPrompt(g);
    renderHand(g);
    renderActions(g);
    renderResult(g);
    renderHash(g);
    renderEvents(g);
    turnHaptic(g);
    body.dataset.version = String(g.version == null ? 0 : g.version);
  };

  const renderBanker = (g) => {
    const b = g.banker;
    const box = $("banker");
    show(box, !!b || !!g.bottom);
    setText($("banker-label"), L("banker"));
    setText($("banker-name"), b ? b.name : "—");
    $("banker-name").title = b ? String(b.name) : "";
    setText($("bank-label"), L("bank"));
    setText($("bank-sum"), b && b.bank != null ? fmt(b.bank) : "—");
    box.querySelector(".banker-bank").hidden = !b;
    box.querySelector(".banker-who").hidden = !b;
    show($("bottom-box"), !!g.bottom);
    setText($("bottom-label"), L("bottom"));
    renderCards($("bottom-card"), g.bottom ? [g.bottom] : [], "mini", "bottom");
  };

  const renderSeats = (g) => {
    const seats = Array.isArray(g.seats) ? g.seats : [];
    setText($("players-label"), L("players"));
    setText($("players-count"), seats.length ? String(seats.length) : "");
    const list = $("seats");
    const existing = new Map();
    for (const li of list.querySelectorAll(":scope > li.seat")) existing.set(li.dataset.player, li);
    const keep = new Set();
    seats.forEach((seat, idx) => {
      const id = String(seat.id);
      keep.add(id);
      let li = existing.get(id);
      if (!li) {
        li = el("li", "seat");
        li.dataset.player = id;
        const top = el("div", "seat-top");
        top.appendChild(el("span", "seat-name"));
        top.appendChild(el("span", "seat-badges"));
        top.appendChild(el("span", "seat-stake"));
        li.appendChild(top);
        const mid = el("div", "seat-mid");
        mid.appendChild(el("div", "seat-cards"));
        mid.appendChild(el("span", "seat-total"));
        mid.appendChild(el("span", "seat-status"));
        li.appendChild(mid);
        li.appendChild(el("div", "seat-money"));
      }
      if (list.children[idx] !== li) list.insertBefore(li, list.children[idx] || null);
      li.classList.toggle("me", !!seat.me);
      li.classList.toggle("on-turn", !!seat.on_turn);
      li.classList.toggle("banker", !!seat.banker);
      li.classList.toggle("leaving", !!seat.leaving);
      const name = li.querySelector(".seat-name");
      setText(name, seat.name);
      name.title = String(seat.name == null ? "" : seat.name);
      const badges = li.querySelector(".seat-badges");
      const bsig = [!!seat.banker, !!seat.leaving].join();
      if (badges.dataset.sig !== bsig) {
        badges.dataset.sig = bsig;
        badges.replaceChildren();
        if (seat.banker) badges.appendChild(el("span", "badge bank", "🏦"));
        if (seat.leaving) badges.appendChild(el("span", "badge", "🚪"));
      }
      setText(li.querySelector(".seat-status"), seat.status || "");
      const cards = Array.isArray(seat.cards) ? seat.cards : [];
      renderCards(li.querySelector(".seat-cards"), cards, "mini", "seat:" + id);
      const total = li.querySelector(".seat-total");
      setText(total, seat.total != null ? String(seat.total) : "");
      show(total, seat.total != null);
      total.classList.toggle("bust", typeof seat.total === "number" && seat.total > 21);
      total.classList.toggle("ochko", seat.total === 21);
      const stake = li.querySelector(".seat-stake");
      stake.replaceChildren();
      if (seat.stake != null) {
        stake.appendChild(el("span", "k", L("stake") + " "));
        stake.title = L("stake") + " " + fmt(seat.stake);
        stake.appendChild(el("b", null, fmt(seat.stake)));
      }
      show(stake, seat.stake != null);
      const money = li.querySelector(".seat-money");
      setText(money, seat.balance != null ? fmt(seat.balance) + " " + L("balance") : "");
      li.title = [seat.name, seat.status, seat.balance != null ? fmt(seat.balance) + " " + L("balance") : ""].filter(Boolean).join(" · ");
    });
    for (const [id, li] of existing) if (!keep.has(id)) { li.remove(); prevCards.delete("seat:" + id); }

    const waiting = Array.isArray(g.waiting) ? g.waiting : [];
    let w = $("waiting");
    if (waiting.length) {
      if (!w) { w = el("li", "waiting-cell"); w.id = "waiting"; }
      w.replaceChildren(el("span", "w-label", "⏳ " + L("waiting_next")), el("span", "w-names", waiting.join(", ")));
      if (w !== list.lastElementChild) list.appendChild(w);
      w.classList.toggle("wide", seats.length % 2 === 0);
    } else if (w) {
      w.remove();
    }
    $("seats-panel").hidden = seats.length === 0 && waiting.length === 0;
    list.classList.toggle("many", seats.length > 2);
  };

  const renderPrompt = (g) => {
    const text = g.prompt || "";
    setText($("prompt"), text);
    const mine = !!(g.turn && g.turn.mine);
    $("prompt-bar").classList.toggle("mine", mine);
    // A turn's clock, or between rounds when the next one deals itself.
    deadline = g.turn && typeof g.turn.deadline === "number" ? g.turn.deadline
      : typeof g.next_round_at === "number" ? g.next_round_at : null;
    show($("prompt-bar"), !!text || deadline != null);
    renderCountdown();
  };

  const renderCountdown = () => {
    const cd = $("countdown");
    if (deadline == null || !current || !current.game) { show(cd, false); return; }
    const now = Date.now() / 1000 + clockOffset;
    const left = Math.max(0, Math.ceil(deadline - now));
    setText(cd, "⏱ " + left + " " + L("seconds"));
    cd.classList.toggle("low", left < 10);
    show(cd, true);
  };
  setInterval(renderCountdown, 250);

  const renderHand = (g) => {
    const me = g.me;
    const mine = !!(g.turn && g.turn.mine);
    body.classList.toggle("my-turn", mine);
    const hand = $("hand");
    hand.classList.toggle("mine", mine);
    setText($("hand-title"), mine ? L("your_turn") : L("your_cards"));
    const box = $("my-cards");
    const meta = $("my-meta");
    meta.replaceChildren();
    if (!me || !me.seated) {
      hand.classList.add("not-seated");
      setText($("my-total"), "");
      prevCards.delete("me");
      box.replaceChildren(el("p", "not-seated-text", L("not_seated")));
      if (me && me.balance != null) meta.appendChild(chip(L("balance"), fmt(me.balance)));
      meta.hidden = !meta.childElementCount;
      return;
    }
    hand.classList.remove("not-seated");
    const cards = Array.isArray(me.cards) ? me.cards : [];
    if (cards.length) {
      if (box.querySelector(".slot, .not-seated-text")) box.replaceChildren();
      renderCards(box, cards, "big", "me");
    } else {
      prevCards.set("me", []);
      box.replaceChildren(el("div", "card slot big"), el("div", "card slot big"));
      box.style.setProperty("--n", "2");
    }
    const tt = $("my-total");
    setText(tt, me.total_text || "");
    if (me.banker) meta.appendChild(chip("🏦", L("banker")));
    if (me.stake != null) meta.appendChild(chip(L("stake"), fmt(me.stake), "stake"));
    if (me.balance != null) meta.appendChild(chip(L("balance"), fmt(me.balance)));
    if (cards.some((c) => c && c.dark)) meta.appendChild(chip("🌑", L("dark_card"), "dark"));
    if (me.status && !mine) meta.appendChild(chip(null, me.status, "status"));
    meta.hidden = !meta.childElementCount;
  };
  const chip = (k, v, cls) => {
    const c = el("span", "chip" + (cls ? " " + cls : ""));
    if (k) c.appendChild(el("span", "k", k));
    c.appendChild(el("b", null, v));
    return c;
  };

  /* ---------- actions ---------- */
  const PRIMARY = new Set(["hit", "stand"]);
  const DANGER = new Set(["leave", "cancel"]);
  let actionsSig = "";
  const actKey = (a) => [a.act, a.amount == null ? "" : a.amount, a.version].join("|");

  const renderActions = (g) => {
    const acts = Array.isArray(g.actions) ? g.actions : [];
    const sig = JSON.stringify([g.id, acts]);
    const box = $("actions");
    if (sig === actionsSig) return;
    actionsSig = sig;
    box.replaceChildren();
    let row = null;
    const lead = acts.some((a) => PRIMARY.has(a.act)) ? null
      : acts.find((a) => a.amount == null && !DANGER.has(a.act) && a.act !== "odds");
    for (const a of acts) {
      const b = el("button", "act");
      b.type = "button";
      b.dataset.act = String(a.act);
      if (a.amount != null) b.dataset.amount = String(a.amount);
      b.textContent = String(a.label == null ? a.act : a.label);
      if (a.amount != null) b.classList.add("amount");
      else if (PRIMARY.has(a.act) || a === lead) b.classList.add("primary", "act-" + a.act);
      else if (DANGER.has(a.act)) b.classList.add("danger");
      else b.classList.add("secondary");
      if (a.act === "odds") b.classList.add("ghost");
      b.disabled = pending.has(actKey(a));
      b.addEventListener("click", () => send(a, b));
      const kind = a.amount != null ? "amounts" : PRIMARY.has(a.act) || a === lead ? "main" : "other";
      if (!row || row.dataset.kind !== kind) {
        row = el("div", "act-row " + kind);
        row.dataset.kind = kind;
        box.appendChild(row);
      }
      row.appendChild(b);
    }
    for (const r of box.querySelectorAll(".act-row.amounts")) {
      const n = r.childElementCount;
      const cols = n <= 4 ? n : n % 3 === 0 ? 3 : n % 4 === 0 ? 4 : n <= 6 ? 3 : 4;
      r.style.setProperty("--cols", String(cols));
    }
    show(box, acts.length > 0);
    updateActionsHeight();
  };

  const send = async (a, btn) => {
    const key = actKey(a);
    if (pending.has(key) || stopped) return;
    pending.add(key);
    btn.disabled = true;
    btn.classList.add("busy");
    const g = current && current.game;
    // The table is the query's (apiUrl); the body says only what was pressed.
    const payload = { game: g ? g.id : null, version: a.version, act: a.act, amount: a.amount == null ? null : a.amount };
    let res = null;
    try {
      const r = await fetch(apiUrl("act"), {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: "tma " + initData },
        body: JSON.stringify(payload),
        cache: "no-store",
      });
      try { res = await r.json(); } catch (_) { res = null; }
      if (r.status === 401) { unauthorized(res); return; }
      if (!res) res = { ok: false, message: r.statusText || String(r.status) };
    } catch (e) {
      res = { ok: false, message: L("offline") };
    } finally {
      pending.delete(key);
      for (const b of $("actions").querySelectorAll("button")) {
        if (b === btn || (b.dataset.act === String(a.act) && (b.dataset.amount || "") === (a.amount == null ? "" : String(a.amount)))) {
          b.disabled = false; b.classList.remove("busy");
        }
      }
    }
    if (res.ok) {
      haptic("impact", "light");
      if (res.toast) toast(res.toast);
    } else {
      haptic("notify", "error");
      toast(res.message || res.error || "…", true);
    }
    if (res.state && !isStale(res.state)) render(res.state);
  };

  /* ---------- toast ---------- */
  let toastTimer = 0, toastHide = 0;
  const toast = (text, bad) => {
    const t = $("toast");
    clearTimeout(toastTimer); clearTimeout(toastHide);
    t.textContent = String(text);
    t.classList.toggle("bad", !!bad);
    t.hidden = false;
    void t.offsetWidth; // restart the transition
    t.classList.add("show");
    toastTimer = setTimeout(() => {
      t.classList.remove("show");
      toastHide = setTimeout(() => { t.hidden = true; }, 220);
    }, 2500);
  };
  const updateActionsHeight = () => {
    const a = $("actions");
    const h = a.hidden ? 0 : a.getBoundingClientRect().height;
    root.style.setProperty("--actions-h", Math.round(h) + "px");
  };
  window.addEventListener("resize", updateActionsHeight);

  /* ---------- result and events ---------- */
  const renderResult = (g) => {
    const slot = $("result-slot");
    const r = g.result;
    const old = $("result");
    if (!r) { if (old) old.remove(); return; }
    const sig = JSON.stringify(r);
    if (old && old.dataset.sig === sig) return;
    const box = el("section", "panel result");
    box.id = "result";
    box.dataset.sig = sig;
    box.appendChild(el("h2", "result-title", r.title || L("result")));
    const ul = el("ul", "result-lines");
    for (const line of Array.isArray(r.lines) ? r.lines : []) {
      const li = el("li", null, line);
      if (/^\s*🏦/u.test(String(line))) li.classList.add("bank-line");
      if (/\+\d/.test(String(line))) li.classList.add("won");
      else if (/[−-]\d/.test(String(line))) li.classList.add("lost");
      ul.appendChild(li);
    }
    box.appendChild(ul);
    if (old) old.replaceWith(box); else slot.appendChild(box);
  };

  // The whole deck hash before the first card (the commitment the replay's check compares
  // with), and after a result the way to that round's replay (initData goes along in the hash).
  const renderHash = (g) => {
    show($("deck-hash"), !!g.commitment);
    setText($("deck-hash-label"), L("deck_hash"));
    setText($("deck-hash-value"), g.commitment || "");
    const replay = g.result && g.result.replay;
    show($("replay-slot"), !!replay);
    setText($("replay-link"), replay ? L("replay_link") : "");
    if (replay) $("replay-link").href = new URL("replay?replay=" + encodeURIComponent(replay), base).toString() + location.hash;
  };

  const renderEvents = (g) => {
    const news = Array.isArray(g.news) ? g.news : [];
    setText($("events-label"), L("events"));
    const ol = $("events");
    const sig = JSON.stringify(news);
    if (ol.dataset.sig !== sig) {
      ol.dataset.sig = sig;
      ol.replaceChildren(...news.map((n, i) => el("li", i === news.length - 1 ? "last" : null, n)));
    }
    show($("events-panel"), news.length > 0);
  };

  // The person's achievements in the chat of the table (🏅 name — what for · round N).
  const renderAchievements = (s) => {
    const list = Array.isArray(s.achievements) ? s.achievements : [];
    setText($("achievements-label"), "🏅 " + L("achievements"));
    const ul = $("achievements");
    const sig = JSON.stringify(list);
    if (ul.dataset.sig !== sig) {
      ul.dataset.sig = sig;
      ul.replaceChildren(...list.map((a) => {
        const li = el("li");
        li.dataset.code = String(a.code || "");
        li.appendChild(el("span", "ach-title", a.title));
        li.appendChild(el("span", "ach-about", " — " + a.about + " · " + a.round));
        return li;
      }));
    }
    show($("achievements-panel"), list.length > 0);
  };

  const turnHaptic = (g) => {
    const t = g.turn;
    if (!t || !t.mine) { lastTurnKey = null; return; }
    const acts = Array.isArray(g.actions) ? g.actions : [];
    const v = t.deadline != null ? t.deadline : acts.length ? acts[0].version : g.version;
    const key = [g.id, t.id, v].join("|");
    if (key !== lastTurnKey) {
      haptic("notify", "warning");
      const hand = $("hand");
      requestAnimationFrame(() => { try { hand.scrollIntoView({ block: "nearest", behavior: reduceMotion ? "auto" : "smooth" }); } catch (_) { /* ignore */ } });
    }
    lastTurnKey = key;
  };

  /* ---------- connection ---------- */
  let es = null;
  let retry = 0;
  let retryTimer = 0;
  let conn = "connecting";
  const setConn = (c) => { conn = c; body.dataset.conn = c; renderConn(); };
  const renderConn = () => {
    const text = conn === "live" ? "" : conn === "offline" ? L("offline") : L("connecting");
    $("conn").dataset.state = conn;
    $("conn").title = text || L("live");
    $("conn-bar").dataset.state = conn;
    show($("conn-bar"), !!text);
    setText($("conn-text"), text);
  };

  const unauthorized = (res) => {
    stopped = true;
    closeES();
    clearTimeout(retryTimer);
    setConn("offline");
    let n = $("notice");
    if (!n) {
      n = el("div", "notice");
      n.id = "notice";
      n.setAttribute("role", "alertdialog");
      const box = el("div", "notice-box");
      box.appendChild(el("div", "notice-icon", "🔒"));
      box.appendChild(el("p", "notice-text"));
      n.appendChild(box);
      body.appendChild(n);
    }
    const msg = (res && (res.message || res.error)) || "401";
    n.querySelector(".notice-text").textContent = String(msg);
    n.hidden = false;
  };

  let lastError = "";
  const showError = (res) => {
    const msg = String((res && (res.message || res.error)) || "…");
    if (!current || !current.game) {
      show($("game"), false);
      setText($("empty-text"), msg);
      show($("empty"), true);
    }
    if (msg !== lastError) toast(msg, true); // the reconnect loop asks again: say it once
    lastError = msg;
  };

  /** GET api/state; returns true unless the viewer is unauthorized. */
  const loadState = async () => {
    let r, res = null;
    try {
      r = await fetch(apiUrl("state"), { headers: { Authorization: "tma " + initData }, cache: "no-store" });
    } catch (_) { return true; }
    try { res = await r.json(); } catch (_) { res = null; }
    if (r.status === 401) { unauthorized(res); return false; }
    if (!r.ok || !res || res.ok === false) { showError(res || { message: r.statusText || String(r.status) }); return true; }
    lastError = "";
    if (!isStale(res)) render(res);
    return true;
  };

  const closeES = () => {
    if (es) { es.onopen = es.onerror = null; es.close(); es = null; }
  };

  const openES = () => {
    if (stopped) return;
    closeES();
    clearTimeout(retryTimer);
    retryTimer = 0;
    setConn("connecting");
    const src = new EventSource(apiUrl("events", { auth: initData }));
    es = src;
    src.onopen = () => { if (es === src) { retry = 0; setConn("live"); } };
    src.addEventListener("state", (ev) => {
      if (es !== src) return;
      retry = 0;
      if (conn !== "live") setConn("live");
      let s;
      try { s = JSON.parse(ev.data); } catch (_) { return; }
      render(s);
    });
    src.onerror = () => {
      if (es !== src) return;
      closeES();
      setConn("offline");
      scheduleReconnect();
    };
  };

  const scheduleReconnect = () => {
    if (stopped || retryTimer) return;
    const delay = Math.min(500 * 2 ** retry, 5000);
    retry += 1;
    retryTimer = setTimeout(async () => {
      retryTimer = 0;
      // the stream cannot tell why it failed: ask once, so that a 401 stops the loop
      const ok = await loadState();
      if (ok && !es) openES();
    }, delay);
  };

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || stopped) return;
    if (!es || es.readyState === EventSource.CLOSED) { retry = 0; openES(); }
  });
  window.addEventListener("online", () => {
    if (!stopped && (!es || es.readyState === EventSource.CLOSED)) { retry = 0; openES(); }
  });

  /* ---------- start ---------- */
  const start = async () => {
    if (tg) {
      try { tg.ready(); } catch (_) { /* ignore */ }
      try { tg.expand(); } catch (_) { /* ignore */ }
      try {
        if (typeof tg.isVersionAtLeast === "function" && tg.isVersionAtLeast("7.7") && typeof tg.disableVerticalSwipes === "function") tg.disableVerticalSwipes();
      } catch (_) { /* ignore */ }
      try { if (typeof tg.onEvent === "function") tg.onEvent("themeChanged", applyScheme); } catch (_) { /* ignore */ }
    }
    if (window.matchMedia) {
      const mq = matchMedia("(prefers-color-scheme: dark)");
      if (mq.addEventListener) mq.addEventListener("change", () => { if (!tg || !tg.colorScheme) applyScheme(); });
    }
    setText($("heading"), "🃏 " + L("title"));
    setConn("connecting");
    const ok = await loadState();
    if (ok) openES();
  };
  start();
})();
