// The review page, keyboard first: Space/Enter shows the answer, 1–4 grade, u undoes,
// n reveals the next derivation step, ? lists the keys. Without this script every button
// is a plain form and the page still works.
//
// One path, local first, online or not. The server hands this device its queue in order,
// each card with its markup and FSRS state (GET /api/review/offline, kept in IndexedDB by
// offline-grades.js). A grade is applied here at once with the user's FSRS parameters
// (fsrs-offline.js), the next card is taken from that queue in the same frame, and the grade
// goes to the server in the background through the ordered, idempotent sync queue
// (POST /api/review/sync). The server stays the source of truth: its queue replaces this
// device's copy whenever it is fetched, and a card it scheduled differently is fetched again.
"use strict";

// The page's CSRF token: sent with every request that changes something.
// A function declaration, not a const: each script declares it, and classic scripts share
// one global scope, where a second const of the same name would stop the script.
function csrf() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

(() => {
  const store = window.RingsideOffline;
  const fsrs = window.RingsideFsrs;
  const canWork = Boolean(store && fsrs && window.indexedDB);
  const NAMES = { 1: "Again", 2: "Hard", 3: "Good", 4: "Easy" };
  const REFRESH_AFTER_MS = 30000;  // the server's queue is fetched again after sending, at most this often
  const RETRIES = [250, 500, 1000, 2000, 4000, 8000, 15000];  // after a failed send, in ms
  let shownAt = performance.now();
  let deck = null;  // this device's queue: the server's snapshot with the grades it lacks applied
  let loading = null;  // the deck being read or fetched
  let offline = false;  // the last request failed, or the browser says there is no network
  let sending = 0;  // grades being sent now (the bar says so)
  let sentAfterOffline = false;
  let retries = 0;
  let stale = false;  // the server scheduled a card differently: fetch its queue again
  let refreshedAt = 0;
  let persisted = Promise.resolve();  // grades are stored in IndexedDB in the order given
  const unsaved = [];  // grades given here and not yet in IndexedDB
  let undoing = false;
  let nextTimer = null;

  const session = () => document.getElementById("review-session");
  const answerBox = () => session()?.querySelector(".card-answer");
  const revealed = () => Boolean(answerBox()?.open);
  const topicsKey = () => session()?.dataset.topics ?? "";

  function markRevealed() {
    session()?.classList.toggle("is-revealed", revealed());
  }

  // The answer is read from its first line (or from the verdict on a checked answer, just
  // above it): scroll there unless all of it is already on screen. The grade buttons stay in
  // reach without scrolling to them: on a phone the bar sits at the bottom of the screen, on
  // a desktop the keys grade.
  function bringIntoView(box, start) {
    const bar = session()?.querySelector(".grade-bar");
    const sticky = bar && getComputedStyle(bar).position === "sticky" ? bar.offsetHeight : 0;
    const top = start.getBoundingClientRect().top;
    const fits = top >= 0 && box.getBoundingClientRect().bottom <= window.innerHeight - sticky;
    if (!fits && (top < 0 || top > window.innerHeight / 3)) start.scrollIntoView({ block: "start" });
  }

  function reveal(start = null) {
    const box = answerBox();
    if (box && !box.open) {
      box.open = true;
      markRevealed();
      session().querySelector(".grade-3")?.focus({ preventScroll: true });
      bringIntoView(box, start || box);
    }
  }

  function shown() {
    shownAt = performance.now();
    document.dispatchEvent(new Event("ringside:content"));
    markRevealed();
    const first = session().querySelector(".drill-form input[name=answer]");
    (first || session()).focus?.({ preventScroll: true });
    // The next card from its start, wherever the last one was left.
    if (session().getBoundingClientRect().top < 0) session().scrollIntoView({ block: "start" });
  }

  const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const newKey = () => (crypto.randomUUID ? crypto.randomUUID().replaceAll("-", "") : String(Math.random()).slice(2));
  // Now, on the server's clock: a phone set a few minutes wrong dates its grades right.
  const clockNow = () => new Date(Date.now() + (deck?.snapshot.clock_offset || 0));

  function plural(count, word) {
    return `${count} ${word}${count === 1 ? "" : "s"}`;
  }

  // ---- This device's queue ----

  // The snapshot as the server gave it, then every grade given here that it does not
  // include, in the order given. A card's `joins` is when it can be shown: 0 for today's
  // queue, the moment the server gave for the others, and for a card graded here the end of
  // its learning step (a card graded into a review interval waits for the server to list it).
  function buildDeck(snapshot, grades) {
    // A snapshot stored by an older version already had its grades applied (and counted in
    // `graded`, the index of the card's next fuzz draw).
    const fresh = snapshot.requested_at !== undefined;
    const cards = new Map();
    for (const card of snapshot.cards) {
      const joins = card.in_queue ? 0 : Date.parse(card.available_at || card.state?.due || 0);
      const graded = fresh ? 0 : card.graded || 0;
      cards.set(card.card_id, { ...card, graded, joins, returned: !card.in_queue });
    }
    const queue = snapshot.queue || snapshot.cards.filter((c) => c.in_queue).map((c) => c.card_id);
    const order = [...new Set([...queue, ...snapshot.cards.map((c) => c.card_id)])];
    // `todays`: when each grade given here was given, to count a day that began since.
    const built = { snapshot, cards, order, given: 0, todays: grades.map((g) => new Date(g.reviewed_at)) };
    for (const grade of grades) {
      const included = grade.status === "sent" && grade.sent_at < snapshot.requested_at;
      if (fresh && !included) {
        applyGrade(built, grade.card_id, grade.rating, new Date(grade.reviewed_at));
      }
    }
    return built;
  }

  function applyGrade(target, cardId, rating, at) {
    target.given += 1;
    const card = target.cards.get(cardId);
    if (!card) return null;  // not on this device: the server schedules it
    const draw = card.fuzz_draws[card.graded] ?? null;
    const { state } = fsrs.review(target.snapshot.scheduler, card.state, rating, at, draw);
    card.state = state;
    card.graded += 1;
    card.in_queue = false;
    const stepping = state.state !== fsrs.REVIEW;
    card.joins = stepping ? Date.parse(state.due) : Infinity;
    card.returned = stepping;
    return card;
  }

  // Every grade given here that the server's snapshot may lack, in the order given.
  async function allGiven() {
    const stored = await store.given();
    const keys = new Set(stored.map((g) => g.idempotency_key));
    return [...stored, ...unsaved.filter((g) => !keys.has(g.idempotency_key))];
  }

  // The next card: the first of the server's order that can be shown now, except that a
  // card whose learning step has ended comes first, as on the server. `first` (a card just
  // undone) comes before all.
  function pick(now, first = null) {
    const time = now.getTime();
    const ready = deck.order.map((id) => deck.cards.get(id)).filter((c) => c.joins <= time);
    const chosen = first && deck.cards.get(first);
    if (chosen) return { card: chosen, ready: ready.includes(chosen) ? ready : [chosen, ...ready] };
    const back = ready.filter((c) => c.returned).sort((a, b) => a.joins - b.joins)[0];
    return { card: back || ready[0] || null, ready };
  }

  function doneToday(now) {
    const ended = deck.snapshot.day_ends.filter((end) => new Date(end) <= now);
    if (!ended.length) return deck.snapshot.done_today + deck.given;
    // A day ended since the snapshot: count what was given here since.
    const start = new Date(ended.at(-1));
    return deck.todays.filter((at) => at >= start).length;
  }

  // ---- Showing a card ----

  const undoButton = '<form class="undo-form"><button type="button" class="link-button">Undo last grade <kbd>u</kbd></button></form>';

  function render(first = null) {
    const root = session();
    if (!root || !deck) return;
    const now = clockNow();
    const { card, ready } = pick(now, first);
    const due = ready.filter((c) => c.state).length;
    const fresh = ready.length - due;
    const done = doneToday(now);
    const total = done + ready.length;
    const progress = `<div class="review-progress">
      <progress value="${done}" max="${total || 1}" aria-label="Today's progress"></progress>
      <span>${done} done · ${due} due · ${fresh} new</span></div>`;
    let body;
    clearTimeout(nextTimer);
    if (card) {
      const draw = card.fuzz_draws[card.graded] ?? null;
      const buttons = [1, 2, 3, 4].map((rating) => {
        const { interval } = fsrs.review(deck.snapshot.scheduler, card.state, rating, now, draw);
        return `<form><button type="button" class="grade grade-${rating}" data-rating="${rating}"><kbd>${rating}</kbd> ${NAMES[rating]}<small>${fsrs.describe(interval)}</small></button></form>`;
      }).join("");
      body = `<p class="review-meta"><a href="/topics/${escape(card.topic)}#card-${escape(card.card_id)}">${escape(card.topic_title)}</a></p>
        ${card.html}
        <div class="grade-bar" role="group" aria-label="How well did you know it?">${buttons}</div>
        ${undoButton}`;
    } else {
      const later = [...deck.cards.values()].filter((c) => Number.isFinite(c.joins) && c.joins > now.getTime());
      const next = later.length ? new Date(Math.min(...later.map((c) => c.joins))) : null;
      const sameDay = next && next.toDateString() === now.toDateString();
      const at = next && (sameDay
        ? next.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
        : next.toLocaleString([], { weekday: "long", hour: "2-digit", minute: "2-digit" }));
      const when = next
        ? `<p>The next card comes due ${sameDay ? "at" : "on"} <time datetime="${next.toISOString()}">${at}</time>.</p>`
        : "<p>Nothing else on this device is due today.</p>";
      body = `<div class="review-done"><h2>Done for now</h2>${when}${undoButton}</div>`;
      if (next) nextTimer = setTimeout(() => { if (!session()?.dataset.card) show(); }, Math.max(next - now, 1000));
    }
    const more = document.getElementById("learn-more");  // the server's "Learn more today" form
    const next = document.createElement("div");
    next.id = "review-session";
    Object.assign(next.dataset, { card: card ? card.card_id : "", key: newKey(), topics: topicsKey() });
    if (offline) next.dataset.offline = "1";
    next.innerHTML = progress + body;
    if (more) next.append(more);
    root.replaceWith(next);
    return card;
  }

  function show(first = null) {
    const card = render(first);
    shown();
    if (!card && !offline) finishOnline();
    return card;
  }

  // Out of cards: once the server has every grade, its own page says what is next (a card
  // the device did not know of, the limits, the next due time).
  async function finishOnline() {
    await syncNow();
    if (session()?.dataset.card || offline) return;
    try {
      const query = [topicsKey(), "fragment=1"].filter(Boolean).join("&");
      const response = await fetch(`/review?${query}`, { headers: { Accept: "text/html" } });
      if (!response.ok || session()?.dataset.card) return;
      const holder = document.createElement("div");
      holder.innerHTML = await response.text();
      const served = holder.firstElementChild;
      if (served?.id !== "review-session" || session()?.dataset.card) return;
      if (served.dataset.card && deck?.cards.has(served.dataset.card)) {
        show(served.dataset.card);  // the server has one more: this device has it too
        return;
      }
      session().replaceWith(served);
      shown();
    } catch (error) {
      // Offline after all: this device's page stays.
    }
  }

  // ---- Reading and fetching the queue ----

  async function loadDeck(fetchFirst) {
    let snapshot = fetchFirst ? null : await store.loadSnapshot(topicsKey());
    if (!snapshot) snapshot = await refresh();
    if (!snapshot) return null;
    deck = buildDeck(snapshot, await allGiven());
    return deck;
  }

  // The server's queue replaces this device's; the card on screen stays on screen.
  async function refresh() {
    try {
      await persisted;
      const snapshot = await store.refresh(topicsKey());
      refreshedAt = Date.now();
      stale = false;
      deck = buildDeck(snapshot, await allGiven());
      goOnline();
      return snapshot;
    } catch (error) {
      goOffline();
      return null;
    }
  }

  function ensureDeck() {
    if (!loading) {
      loading = loadDeck(false).catch(() => null).then((built) => {
        if (!built) loading = null;  // try again at the next grade
        return built;
      });
    }
    return loading;
  }

  // ---- Grading and undo ----

  async function grade(rating) {
    const root = session();
    if (undoing || !root?.dataset.card || !revealed()) return;
    if (!canWork) {
      // No IndexedDB (a private window in some browsers): the plain form.
      root.querySelector(`.grade-${rating}`)?.closest("form[action]")?.submit();
      return;
    }
    if (!deck && !(await ensureDeck())) {
      // Nothing on this device and no network to fetch it: the plain form, if there is one.
      root.querySelector(`.grade-${rating}`)?.closest("form[action]")?.submit();
      return;
    }
    if (session() !== root || root.dataset.graded) return;
    root.dataset.graded = "1";  // a second key press on the same card does nothing
    const at = clockNow();
    const record = {
      idempotency_key: root.dataset.key,
      card_id: root.dataset.card,
      rating,
      duration_ms: Math.round(performance.now() - shownAt),
      reviewed_at: at.toISOString(),
      owner: deck.snapshot.owner,
    };
    const card = applyGrade(deck, record.card_id, rating, at);
    deck.todays.push(at);
    record.local_due = card?.state.due ?? null;
    unsaved.push(record);
    show();
    // Stored after the next card is on screen, in the order given, then sent.
    persisted = persisted
      .then(() => store.add(record))
      .then(() => {
        unsaved.splice(unsaved.indexOf(record), 1);
        return showStatus();
      })
      .catch(() => null);
    syncSoon();
  }

  // The latest grade comes back: one still on this device is simply dropped; one the server
  // has is undone there (POST /api/review/undo), then this device's queue is fetched again.
  async function undo() {
    if (!canWork) {
      session()?.querySelector("form.undo-form[action]")?.submit();  // the plain form
      return;
    }
    if (undoing) return;
    undoing = true;
    try {
      await persisted;
      await syncing;  // a grade being sent is either sent or still waiting
      await store.idle();
      if (!deck && !(await ensureDeck())) return;
      const last = (await store.given()).at(-1);
      if (last?.status === "waiting") {
        await store.remove(last.seq);
        deck = buildDeck(deck.snapshot, await allGiven());
        show(last.card_id);
        await showStatus();
        return;
      }
      let response;
      try {
        response = await fetch("/api/review/undo", { method: "POST", headers: { Accept: "application/json", "X-CSRF-Token": csrf() } });
      } catch (error) {
        goOffline();
        await showStatus("Only grades not yet sent can be undone offline.");
        return;
      }
      if (!response.ok) return;  // 404: nothing to undo
      const body = await response.json();
      if (last && last.card_id === body.card_id) await store.remove(last.seq);
      await refresh();
      show(body.card_id);
      await showStatus();
    } finally {
      undoing = false;
    }
  }

  // ---- Sending ----

  let syncTimer = null;
  let syncing = null;

  function syncSoon(delay = 0) {
    clearTimeout(syncTimer);
    syncTimer = setTimeout(syncNow, delay);
  }

  function goOffline() {
    offline = true;
    session()?.setAttribute("data-offline", "1");
  }

  function goOnline() {
    offline = false;
    session()?.removeAttribute("data-offline");
  }

  // Send what is waiting, then fetch the server's queue when it may differ from this
  // device's. After a failure, try again soon and then less often (the browser's online flag
  // is only a hint); the `online` event and the page coming back into view try at once.
  function syncNow() {
    if (!canWork) return Promise.resolve();
    if (undoing) {
      syncSoon(50);  // after the undo, which decides whether the last grade is sent at all
      return Promise.resolve();
    }
    if (!syncing) syncing = sendWaiting().finally(() => { syncing = null; });
    return syncing;
  }

  async function sendWaiting() {
    await persisted;
    const waiting = (await store.waiting()).length;
    // A grade given online goes quietly; a backlog (grades given offline) says it is sent.
    if (waiting && navigator.onLine && (offline || sentAfterOffline || waiting > 1)) {
      sentAfterOffline = true;
      sending = waiting;
      await showStatus();
    }
    const result = await store.sync();
    sending = 0;
    if (result.offline) {
      if (result.status === undefined) goOffline();
      await showStatus(result.status === 401 ? "Sign in again to send them." : "");
      syncSoon(RETRIES[Math.min(retries++, RETRIES.length - 1)]);
      return;
    }
    retries = 0;
    if (result.sent || !offline) goOnline();
    // The server scheduled a card otherwise than this device: its copy is fetched again.
    for (const grade of result.taken) {
      const server = grade.server;
      if (server && grade.local_due && Math.abs(Date.parse(server.due) - Date.parse(grade.local_due)) > 1000) stale = true;
    }
    const old = Date.now() - refreshedAt > REFRESH_AFTER_MS;
    if (deck && (stale || old || result.rejected || result.sent > 1)) {
      await refresh();
      if (!session()?.dataset.card) render();
    }
    const said = sentAfterOffline && result.sent ? `${plural(result.sent, "grade")} sent.` : "";
    if (result.sent) sentAfterOffline = false;
    await showStatus(said);
    if ((await store.waiting()).length) syncSoon();  // given while these were sent
  }

  async function showStatus(message = "") {
    const bar = document.getElementById("sync-bar");
    if (!bar || !canWork) return;
    const waiting = (await store.waiting()).length;
    const refused = await store.rejected();
    const parts = [];
    const cut = offline || !navigator.onLine;
    if (sending) parts.push(`Sending ${plural(sending, "grade")}…`);
    else if (cut) parts.push("Offline: reviewing the cards kept on this device.");
    if (waiting && !sending && (cut || waiting > 1)) parts.push(`${plural(waiting, "grade")} waiting to be sent.`);
    if (message) parts.push(message);
    document.getElementById("sync-status").textContent = parts.join(" ");
    const list = document.getElementById("sync-rejected");
    list.innerHTML = refused.map((g) =>
      `<li>Not saved: ${escape(NAMES[g.rating])} on <a href="/cards/${escape(g.card_id)}">${escape(g.card_id)}</a>, given ${escape(new Date(g.reviewed_at).toLocaleString())}: ${escape(g.detail || "")} <button type="button" class="link-button" data-action="dismiss" data-seq="${g.seq}">Dismiss</button></li>`,
    ).join("");
    list.hidden = refused.length === 0;
    bar.hidden = parts.length === 0 && refused.length === 0;
    bar.classList.toggle("is-offline", cut && !sending);
    bar.classList.toggle("is-sending", Boolean(sending));
    bar.dataset.waiting = String(waiting);
  }

  // ---- Keys and buttons ----

  function toggleHelp() {
    const keys = document.getElementById("review-keys");
    keys.hidden = !keys.hidden;
    document.querySelector("[data-action=help]")?.setAttribute("aria-expanded", String(!keys.hidden));
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = target instanceof HTMLElement &&
      (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
    if (typing) {
      if (event.key === "Escape") target.blur();  // leave the answer box to use the keys
      return;
    }
    const onControl = target instanceof HTMLElement && target.closest("button, a, summary");
    if ((event.key === " " || event.key === "Enter") && !revealed()) {
      if (event.key === "Enter" && onControl) return;  // Enter on a link or button does its job
      event.preventDefault();
      reveal();
    } else if (["1", "2", "3", "4"].includes(event.key)) {
      event.preventDefault();
      grade(Number(event.key));
    } else if (event.key === "u") {
      event.preventDefault();
      undo();
    } else if (event.key === "n") {
      session()?.querySelector("button.next-step:not([hidden])")?.click();
    } else if (event.key === "?") {
      toggleHelp();
    }
  });

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.grade[data-rating]");
    if (button && session()?.contains(button)) {
      event.preventDefault();
      if (!revealed()) reveal();
      grade(Number(button.dataset.rating));
    } else if (event.target.closest("[data-action=help]")) {
      toggleHelp();
    } else if (event.target.closest(".undo-form button") && canWork) {
      event.preventDefault();
      undo();
    } else if (event.target.closest("[data-action=dismiss]")) {
      const seq = Number(event.target.closest("[data-action=dismiss]").dataset.seq);
      store.remove(seq).then(() => showStatus());
    }
  });

  document.addEventListener("toggle", (event) => {
    if (event.target.classList?.contains("card-answer")) markRevealed();
  }, true);

  // A checked numeric answer or order suggests a grade: show the answer and focus that button.
  document.addEventListener("ringside:suggest", (event) => {
    if (!session()?.contains(event.target)) return;
    reveal(event.target.closest(".card")?.querySelector(".drill-result"));
    const button = session().querySelector(`.grade-${event.detail.rating}`);
    session().querySelectorAll(".grade").forEach((b) => b.classList.remove("is-suggested"));
    button?.classList.add("is-suggested");
    button?.focus({ preventScroll: true });
  });

  // The network is back, or the page is in view again: send at once.
  function resume() {
    retries = 0;
    if (offline) sentAfterOffline = true;
    goOnline();
    showStatus();
    syncNow().then(() => (Date.now() - refreshedAt > REFRESH_AFTER_MS && deck ? refresh() : null));
  }

  window.addEventListener("online", resume);
  window.addEventListener("offline", () => { goOffline(); showStatus(); });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && navigator.onLine) resume();
  });

  document.addEventListener("DOMContentLoaded", async () => {
    document.documentElement.classList.add("js");
    markRevealed();
    if (!canWork) return;
    const shell = Boolean(session()?.dataset.shell);
    if (shell) {
      // The service worker's copy of this page: the network is gone; this device's queue.
      const topics = new URLSearchParams(location.search).getAll("topic");
      session().dataset.topics = topics.map((t) => `topic=${encodeURIComponent(t)}`).join("&");
      goOffline();
      if (!(await ensureDeck())) {
        session().innerHTML = `<div class="review-done"><h2>No cards on this device yet</h2>
          <p>Open the review page once while online: the cards due in the next days are then kept here for review without a network.</p></div>`;
        await showStatus();
        return;
      }
      show();
      await showStatus();
      syncSoon();
      return;
    }
    // The server's page: its card stays; this device's queue is read or fetched meanwhile,
    // and whatever was given here before is sent.
    if (!navigator.onLine) goOffline();
    await showStatus();
    await ensureDeck();
    // Grades given here that the server does not have yet: its card may be one of them.
    if (deck && (await store.waiting()).length && !session()?.dataset.graded) show();
    if (deck && !refreshedAt && navigator.onLine) {
      await syncNow();
      if (!refreshedAt) await refresh();
    } else {
      syncSoon();
    }
    document.documentElement.dataset.reviewReady = "1";
  });
})();
