/* Ochko (the game) — a settled round replayed card by card, and its fairness proof checked here,
 * in the page (docs/fairness.md): SHA-256 of "ochko-v1|salt|order" (WebCrypto) against the hash
 * published before the first card, and every dealt card against that order. The server hands
 * over the facts only; the verdict is the page's. Every server string goes in via textContent. */
(() => {
  "use strict";

  // Telegram puts the launch parameters in the address's fragment; its script reads them from
  // there too, so the page works when that script is slow or absent.
  const launch = new URLSearchParams(location.hash.slice(1));
  let tg = null; // Telegram's WebApp object, once its script has loaded
  const telegram = () => (window.Telegram && window.Telegram.WebApp) || null;
  const initData = (telegram() && telegram().initData) || launch.get("tgWebAppData") || "";
  const query = new URLSearchParams(location.search);
  const $ = (id) => document.getElementById(id);
  const body = document.body;
  const root = document.documentElement;

  let labels = {};
  const L = (key) => (labels[key] != null ? String(labels[key]) : "");
  // A label with its {marks} filled in.
  const F = (key, values) => L(key).replace(/\{(\w+)\}/g, (all, mark) => (mark in values ? String(values[mark]) : all));

  const el = (tag, cls, text) => {
    const n = document.createElement(tag);
    if (cls) n.className = cls;
    if (text != null) n.textContent = String(text);
    return n;
  };

  const applyScheme = () => {
    const dark = tg && tg.colorScheme ? tg.colorScheme === "dark"
      : !!(window.matchMedia && matchMedia("(prefers-color-scheme: dark)").matches);
    root.dataset.scheme = dark ? "dark" : "light";
  };

  /* ---------- cards ---------- */
  const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const codeText = (code) => {
    const c = String(code);
    if (/^X\d$/.test(c)) return "★";
    return c.slice(0, -1) + (SUIT[c.slice(-1)] || c.slice(-1));
  };
  const makeCard = (c, dark) => {
    const text = String(c.text || codeText(c.code));
    const joker = text === "★";
    const rank = joker ? "★" : text.slice(0, -1);
    const suit = joker ? "" : text.slice(-1);
    const n = el("div", "card mini face" + (c.red ? " red" : " black") + (joker ? " joker" : "") + ([...rank].length > 1 ? " r2" : "") + (dark ? " dark-mark" : ""));
    n.dataset.code = String(c.code);
    n.setAttribute("role", "img");
    n.setAttribute("aria-label", text + (dark ? " · " + L("dark_card") : ""));
    const corner = el("span", "corner tl");
    corner.appendChild(el("span", "rk", rank));
    if (suit) corner.appendChild(el("span", "st", suit));
    n.appendChild(corner);
    return n;
  };

  /* ---------- the proof, checked here ---------- */
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
  const sha256 = async (text) => hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));

  /** The shuffles as the round showed them: the hash published before each one's first card,
   * the cards dealt from it in order, and the bottom card shown. */
  const dealtBy = (frames) => {
    const decks = [];
    let stray = 0; // cards dealt before any shuffle: no commitment covers them
    for (const f of frames) {
      const deck = decks[decks.length - 1];
      if (f.kind === "shuffled") decks.push({ commitment: String(f.commitment || ""), dealt: [], bottom: null });
      else if (f.kind === "card") { if (deck) deck.dealt.push(String(f.card.code)); else stray += 1; }
      else if (f.kind === "bottom" && deck) deck.bottom = String(f.card.code);
    }
    return { decks, stray };
  };

  const check = async (replay) => {
    const lines = [];
    const add = (check, ok, text) => lines.push({ check, ok, text });
    const shown = dealtBy(replay.frames);
    const revealed = replay.shuffles;
    if (!revealed.length) return { state: "none", lines: [{ check: "none", ok: false, text: L("replay-no_proof") }] };
    if (!(window.crypto && crypto.subtle && window.TextEncoder)) {
      return { state: "fails", lines: [{ check: "crypto", ok: false, text: L("replay-no_crypto") }] };
    }
    if (shown.decks.length !== revealed.length || shown.stray) {
      add("count", false, L("replay-count_bad"));
    }
    for (let i = 0; i < revealed.length; i += 1) {
      const n = i + 1;
      const order = revealed[i].order.map(String);
      const deck = shown.decks[i] || { commitment: "", dealt: [], bottom: null };
      const committed = deck.commitment.trim().toLowerCase();
      const computed = await sha256("ochko-v1|" + String(revealed[i].salt) + "|" + order.join(" "));
      if (committed && computed === committed) add("hash", true, F("replay-hash_ok", { n }));
      else add("hash", false, F("replay-hash_bad", { n, computed, committed: committed || "—" }));
      const wrong = deck.dealt.findIndex((code, k) => k >= order.length || order[k] !== code);
      if (wrong < 0) add("deal", true, F("replay-deal_ok", { n }));
      else {
        const expected = wrong < order.length ? codeText(order[wrong]) : "—";
        add("deal", false, F("replay-deal_bad", { n, place: wrong + 1, card: codeText(deck.dealt[wrong]), expected }));
      }
      if (deck.bottom != null && deck.bottom !== order[order.length - 1]) {
        add("bottom", false, F("replay-bottom_bad", { card: codeText(deck.bottom), expected: codeText(order[order.length - 1] || "") }));
      }
    }
    return { state: lines.every((l) => l.ok) ? "holds" : "fails", lines };
  };

  const showProof = (replay, found) => {
    body.dataset.proof = found.state;
    $("verdict").textContent = found.state === "holds" ? L("replay-holds") : found.state === "fails" ? L("replay-fails") : "";
    const list = $("proof-lines");
    list.replaceChildren();
    for (const line of found.lines) {
      const li = el("li", "", line.text);
      li.dataset.check = line.check;
      li.dataset.ok = line.ok ? "1" : "0";
      list.appendChild(li);
    }
    const decks = $("decks");
    decks.replaceChildren();
    const shown = dealtBy(replay.frames).decks;
    replay.shuffles.forEach((shuffle, i) => {
      const box = el("div", "deck");
      const row = (key, value) => {
        const p = el("p");
        p.appendChild(el("span", "label", L(key) + " "));
        p.appendChild(el("code", "", value));
        box.appendChild(p);
      };
      row("replay-commitment", (shown[i] && shown[i].commitment) || shuffle.commitment);
      row("replay-salt", shuffle.salt);
      row("replay-order", shuffle.order.join(" "));
      decks.appendChild(box);
    });
  };

  /* ---------- the round, card by card ---------- */
  let replay = null;
  let at = 0; // frames shown

  const render = () => {
    const frames = replay.frames;
    at = Math.max(0, Math.min(at, frames.length));
    body.dataset.frame = String(at);
    const hands = new Map(replay.players.map((p) => [p.id, { cards: [], stake: null }]));
    let bank = frames.length ? null : "";
    let bottom = null;
    for (const f of frames.slice(0, at)) {
      bank = f.bank;
      if (f.kind === "card" && hands.has(f.player)) hands.get(f.player).cards.push(f);
      else if (f.kind === "stake" && hands.has(f.player)) hands.get(f.player).stake = f.amount;
      else if (f.kind === "bottom") bottom = f.card;
      else if (f.kind === "shuffled" && bottom != null) bottom = null;
    }
    const current = at ? frames[at - 1] : null;
    $("bank-sum").textContent = bank == null ? "" : String(bank);
    $("bottom-box").hidden = bottom == null;
    $("bottom-card").replaceChildren(...(bottom ? [makeCard(bottom, false)] : []));
    const seats = $("seats");
    seats.replaceChildren();
    for (const p of replay.players) {
      const hand = hands.get(p.id);
      const li = el("li", "seat");
      li.dataset.player = String(p.id);
      li.dataset.now = current && current.player === p.id ? "1" : "0";
      const who = el("span", "seat-name", (p.banker ? "🏦 " : "") + p.name);
      if (hand.stake != null) who.appendChild(el("span", "k", " · " + L("stake") + " " + hand.stake));
      li.appendChild(who);
      const cards = el("span", "seat-cards");
      for (const f of hand.cards) cards.appendChild(makeCard(f.card, f.dark));
      li.appendChild(cards);
      seats.appendChild(li);
    }
    $("now").textContent = current ? current.text : "";
    $("step").textContent = F("replay-step", { n: at, total: frames.length });
    $("first").disabled = $("prev").disabled = at === 0;
    $("next").disabled = $("last").disabled = at === frames.length;
    const log = $("log");
    log.replaceChildren();
    frames.slice(0, at).forEach((f, i) => {
      const li = el("li", "", f.text);
      li.dataset.now = i === at - 1 ? "1" : "0";
      log.appendChild(li);
    });
    $("result").hidden = at !== frames.length;
  };

  const go = (to) => { at = to; render(); };

  const show = (data) => {
    labels = data.labels || {};
    root.lang = data.lang || "";
    replay = data.replay;
    document.title = "🔍 " + F("replay-title", { round: replay.round });
    $("heading").textContent = replay.heading;
    $("chat-title").textContent = replay.chat_title || "";
    $("proof-title").textContent = L("replay-proof");
    $("verdict").textContent = L("replay-checking");
    $("proof-how").textContent = L("replay-how");
    $("bank-label").textContent = L("bank");
    $("bottom-label").textContent = L("bottom");
    $("result-title").textContent = replay.result.title;
    $("result-lines").replaceChildren(...replay.result.lines.map((line) => el("li", "", line)));
    for (const [id, key] of [["first", "replay-first"], ["prev", "replay-prev"], ["next", "replay-next"], ["last", "replay-last"]]) {
      $(id).textContent = L(key);
    }
    $("first").onclick = () => go(0);
    $("prev").onclick = () => go(at - 1);
    $("next").onclick = () => go(at + 1);
    $("last").onclick = () => go(replay.frames.length);
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowRight") go(at + 1);
      else if (e.key === "ArrowLeft") go(at - 1);
    });
    $("game").hidden = false;
    $("notice").hidden = true;
    render();
    body.dataset.proof = "checking";
    check(replay).then((found) => showProof(replay, found), (error) => {
      showProof(replay, { state: "fails", lines: [{ check: "error", ok: false, text: String(error) }] });
    });
  };

  const refuse = (message) => {
    body.dataset.proof = "refused";
    $("notice-text").textContent = String(message || "");
    $("notice").hidden = false;
    $("game").hidden = true;
  };

  const load = async () => {
    const param = query.get("replay") || query.get("tgWebAppStartParam") || launch.get("tgWebAppStartParam")
      || ((telegram() && telegram().initDataUnsafe) || {}).start_param || "";
    const asked = /^v([1-9]\d*)r([1-9]\d*)$/.exec(param);
    const url = new URL("api/replay", location.href);
    if (asked) { url.searchParams.set("game", asked[1]); url.searchParams.set("round", asked[2]); }
    for (const key of ["chat", "thread"]) if (query.get(key)) url.searchParams.set(key, query.get(key));
    let answer = null;
    try {
      const r = await fetch(url.toString(), { headers: { Authorization: "tma " + initData }, cache: "no-store" });
      answer = await r.json();
    } catch (error) {
      refuse(String(error));
      return;
    }
    if (!answer || !answer.ok) refuse(answer && answer.message);
    else show(answer);
  };

  const attach = () => {
    const found = (window.Telegram && window.Telegram.WebApp) || null;
    if (!found || found === tg) return;
    tg = found;
    applyScheme();
    try { tg.ready(); tg.expand(); } catch (_) { /* old clients */ }
    try { tg.onEvent("themeChanged", applyScheme); } catch (_) { /* old clients */ }
  };
  applyScheme();
  attach();
  window.addEventListener("load", attach); // Telegram's script loads beside this one
  load();
})();
