// The review page, keyboard first: Space/Enter shows the answer, 1–4 grade, u undoes,
// n reveals the next derivation step, ? lists the keys. Without this script every button
// is a plain form and the page still works.
//
// It also works offline: the cards due in the next days are kept on this device
// (offline-grades.js), the buttons' intervals come from the card's FSRS state
// (fsrs-offline.js), and grades wait in IndexedDB until the network returns.
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
  let shownAt = performance.now();
  let busy = false;
  let finished = Promise.resolve();  // settles when the grade or undo under way is done
  let release = () => {};

  function start() {
    busy = true;
    finished = new Promise((resolve) => { release = resolve; });
  }

  function end() {
    busy = false;
    release();
  }
  let offline = false;  // the session shown comes from this device, not the server
  let retry = null;

  const session = () => document.getElementById("review-session");
  const answerBox = () => session()?.querySelector(".card-answer");
  const revealed = () => Boolean(answerBox()?.open);

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

  async function load(extra = "") {
    const root = session();
    const topics = root?.dataset.topics || "";
    const query = [topics, "fragment=1", extra].filter(Boolean).join("&");
    const response = await fetch(`/review?${query}`, { headers: { Accept: "text/html" } });
    if (!response.ok) throw new Error(`review page answered ${response.status}`);
    root.outerHTML = await response.text();
    offline = false;
    shown();
  }

  // ---- The session from this device's cards ----

  const escape = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  function topicsWanted() {
    const query = new URLSearchParams(session()?.dataset.topics || "");
    const wanted = query.getAll("topic");
    return wanted.length ? new Set(wanted) : null;
  }

  // Today's queue as the server builds it: learning cards that are due, reviews due before
  // the day ends, then the new cards and early reviews that were in today's queue.
  function queueOf(snapshot, now) {
    const wanted = topicsWanted();
    const dayEnd = new Date(snapshot.day_ends.find((end) => new Date(end) > now) || snapshot.day_ends.at(-1));
    const learning = [];
    const reviews = [];
    const rest = [];
    for (const card of snapshot.cards) {
      if (wanted && !wanted.has(card.topic)) continue;
      const state = card.state;
      const due = state ? new Date(state.due) : null;
      if (state && state.state !== fsrs.REVIEW && due <= now) learning.push(card);
      else if (state && state.state === fsrs.REVIEW && due < dayEnd) reviews.push(card);
      else if (card.in_queue) rest.push(card);
    }
    const byDue = (a, b) => new Date(a.state.due) - new Date(b.state.due);
    learning.sort(byDue);
    reviews.sort(byDue);
    const later = snapshot.cards
      .filter((c) => c.state && c.state.state !== fsrs.REVIEW && new Date(c.state.due) > now && new Date(c.state.due) < dayEnd)
      .map((c) => new Date(c.state.due));
    return {
      cards: [...learning, ...reviews, ...rest],
      due: learning.length + reviews.length + rest.filter((c) => c.state).length,
      fresh: rest.filter((c) => !c.state).length,
      next: later.length ? new Date(Math.min(...later)) : null,
    };
  }

  function outcomes(snapshot, card, now) {
    const draw = card.fuzz_draws[card.graded] ?? null;
    return [1, 2, 3, 4].map((rating) => ({
      rating,
      ...fsrs.review(snapshot.scheduler, card.state, rating, now, draw),
    }));
  }

  const undoButton = '<form class="undo-form"><button type="button" class="link-button">Undo last grade <kbd>u</kbd></button></form>';

  async function renderOffline(first = null) {
    const snapshot = await store.loadSnapshot();
    const root = session();
    const topics = root?.dataset.topics || "";
    const now = new Date(Date.now() + (snapshot?.clock_offset || 0));
    if (!snapshot) {
      root.outerHTML = `<div id="review-session" data-card="" data-topics="${escape(topics)}" data-offline="1">
        <div class="review-done"><h2>No cards on this device yet</h2>
        <p>Open the review page once while online: the cards due in the next days are then kept here for offline review.</p></div></div>`;
      offline = true;
      return;
    }
    const queue = queueOf(snapshot, now);
    if (first) {
      const index = queue.cards.findIndex((c) => c.card_id === first);
      if (index > 0) queue.cards.unshift(...queue.cards.splice(index, 1));
    }
    // Grades today: the server's count and those given since, until the day it counted ends.
    const ended = snapshot.day_ends.filter((end) => new Date(end) <= now);
    const dayStart = ended.length ? new Date(ended.at(-1)) : null;
    const done = dayStart
      ? (await store.waiting()).filter((g) => new Date(g.reviewed_at) >= dayStart).length
      : snapshot.done_today + snapshot.local_done;
    const total = done + queue.due + queue.fresh;
    const progress = `<div class="review-progress">
      <progress value="${done}" max="${total || 1}" aria-label="Today's progress"></progress>
      <span>${done} done · ${queue.due} due · ${queue.fresh} new</span></div>`;
    const card = queue.cards[0];
    let body;
    if (card) {
      const buttons = outcomes(snapshot, card, now).map(({ rating, interval }) =>
        `<form><button type="button" class="grade grade-${rating}" data-rating="${rating}"><kbd>${rating}</kbd> ${NAMES[rating]}<small>${fsrs.describe(interval)}</small></button></form>`,
      ).join("");
      body = `<p class="review-meta"><a href="/topics/${escape(card.topic)}#card-${escape(card.card_id)}">${escape(card.topic_title)}</a></p>
        ${card.html}
        <div class="grade-bar" role="group" aria-label="How well did you know it?">${buttons}</div>
        ${undoButton}`;
    } else {
      const next = queue.next
        ? `<p>The next card comes due at <time datetime="${queue.next.toISOString()}">${queue.next.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}</time>.</p>`
        : "<p>Nothing else on this device is due today.</p>";
      body = `<div class="review-done"><h2>Done for now</h2>${next}${undoButton}</div>`;
      clearTimeout(retry);
      if (queue.next) retry = setTimeout(() => { if (offline) renderOffline(); }, Math.max(queue.next - now, 1000));
    }
    const key = crypto.randomUUID ? crypto.randomUUID().replaceAll("-", "") : String(Math.random()).slice(2);
    root.outerHTML = `<div id="review-session" data-card="${card ? escape(card.card_id) : ""}" data-key="${key}" data-topics="${escape(topics)}" data-offline="1">${progress}${body}</div>`;
    offline = true;
    shown();
  }

  // Apply a grade to this device's copy of the card, so the next offline session shows the
  // state the server will have. Returns the state before, for undo.
  async function applyLocally(cardId, rating, now) {
    const snapshot = await store.loadSnapshot();
    const card = snapshot?.cards.find((c) => c.card_id === cardId);
    if (!card) return null;
    const before = { state: card.state, in_queue: card.in_queue, graded: card.graded };
    const draw = card.fuzz_draws[card.graded] ?? null;
    card.state = fsrs.review(snapshot.scheduler, card.state, rating, now, draw).state;
    card.graded += 1;
    card.in_queue = false;
    snapshot.local_done += 1;
    await store.saveSnapshot(snapshot);
    return before;
  }

  async function gradeOffline(root, rating, duration, clicked) {
    const cardId = root.dataset.card;
    const snapshot = await store.loadSnapshot();
    const now = new Date(clicked.getTime() + (snapshot?.clock_offset || 0));
    const before = await applyLocally(cardId, rating, now);
    await store.add({
      idempotency_key: root.dataset.key,
      card_id: cardId,
      rating,
      duration_ms: duration,
      reviewed_at: now.toISOString(),
      owner: snapshot?.owner,
      before,
    });
    await renderOffline();
    await showStatus();
  }

  // ---- Grading, undo, sync ----

  async function grade(rating) {
    const root = session();
    if (busy || !root?.dataset.card || !revealed()) return;
    start();
    const now = new Date();
    const duration = Math.round(performance.now() - shownAt);
    try {
      if (canWork && (offline || !navigator.onLine || (await store.waiting()).length)) {
        await gradeOffline(root, rating, duration, now);
        syncSoon();
        return;
      }
      let response;
      try {
        response = await fetch(`/api/review/${encodeURIComponent(root.dataset.card)}`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() },
          body: JSON.stringify({ rating, idempotency_key: root.dataset.key, duration_ms: duration }),
        });
      } catch (error) {
        if (!canWork) throw error;
        // The network is gone: keep the grade here, with the time it was given.
        await gradeOffline(root, rating, duration, now);
        syncSoon();
        return;
      }
      if (!response.ok) throw new Error(`grading answered ${response.status}`);
      if (canWork) await applyLocally(root.dataset.card, rating, now).catch(() => null);
      await load();
    } catch (error) {
      // Fall back to the plain form, which the server answers with the next card.
      root.querySelector(`.grade-${rating}`)?.closest("form[action]")?.submit();
    } finally {
      end();
    }
  }

  async function undoOffline() {
    const waiting = (await store.waiting()).sort((a, b) => a.seq - b.seq);
    const last = waiting.at(-1);
    if (!last) return false;
    await store.remove(last.seq);
    const snapshot = await store.loadSnapshot();
    const card = snapshot?.cards.find((c) => c.card_id === last.card_id);
    if (card && last.before) {
      Object.assign(card, last.before);
      snapshot.local_done = Math.max(0, snapshot.local_done - 1);
      await store.saveSnapshot(snapshot);
    }
    await renderOffline(last.card_id);
    await showStatus();
    return true;
  }

  async function undo() {
    if (busy) await finished;  // "u" right after a grade undoes that grade
    if (busy) return;
    start();
    try {
      if (canWork && await undoOffline()) return;
      let response;
      try {
        response = await fetch("/api/review/undo", { method: "POST", headers: { Accept: "application/json", "X-CSRF-Token": csrf() } });
      } catch (error) {
        await showStatus("Only grades not yet sent can be undone offline.");
        return;
      }
      if (response.status === 404) return;
      if (!response.ok) throw new Error(`undo answered ${response.status}`);
      const body = await response.json();
      await load(`card=${encodeURIComponent(body.card_id)}`);
      if (canWork) store.refresh().catch(() => null);  // the undone card's state is back
    } finally {
      end();
    }
  }

  function plural(count, word) {
    return `${count} ${word}${count === 1 ? "" : "s"}`;
  }

  async function showStatus(message = "") {
    const bar = document.getElementById("sync-bar");
    if (!bar || !canWork) return;
    const waiting = (await store.waiting()).length;
    const refused = await store.rejected();
    const parts = [];
    if (offline || !navigator.onLine) parts.push("Offline: reviewing the cards kept on this device.");
    if (waiting) parts.push(`${plural(waiting, "grade")} waiting to be sent.`);
    if (message) parts.push(message);
    document.getElementById("sync-status").textContent = parts.join(" ");
    const list = document.getElementById("sync-rejected");
    list.innerHTML = refused.map((g) =>
      `<li>Not saved: ${escape(NAMES[g.rating])} on <a href="/cards/${escape(g.card_id)}">${escape(g.card_id)}</a>, given ${escape(new Date(g.reviewed_at).toLocaleString())}: ${escape(g.detail || "")} <button type="button" class="link-button" data-action="dismiss" data-seq="${g.seq}">Dismiss</button></li>`,
    ).join("");
    list.hidden = refused.length === 0;
    bar.hidden = parts.length === 0 && refused.length === 0;
    bar.classList.toggle("is-offline", offline || !navigator.onLine);
    bar.dataset.waiting = String(waiting);
  }

  let syncTimer = null;

  function syncSoon(delay = 0) {
    clearTimeout(syncTimer);
    syncTimer = setTimeout(syncNow, delay);
  }

  // Send what is waiting; once nothing is, fetch fresh cards and go back to the server's
  // session. While grades wait, try again every 15 seconds (the browser's online flag is
  // only a hint).
  async function syncNow() {
    if (!canWork) return;
    const waiting = (await store.waiting()).length;
    if (waiting && navigator.onLine) await showStatus(`Sending ${plural(waiting, "grade")}…`);
    const result = await store.sync();
    if (result.offline || (await store.waiting()).length) {
      const why = result.status === 401 ? "Sign in again to send them." : "";
      await showStatus(why);
      syncSoon(15000);
      return;
    }
    try {
      await store.refresh();
      // Back to the server's session, whose counts now include the grades just sent.
      if ((offline || result.sent) && !busy) await load(`card=${encodeURIComponent(session()?.dataset.card || "")}`);
    } catch (error) {
      syncSoon(15000);
    }
    await showStatus(result.sent ? `${plural(result.sent, "grade")} sent.` : "");
  }

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
    } else if (event.target.closest(".undo-form button")) {
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

  window.addEventListener("online", () => { showStatus(); syncSoon(); });
  window.addEventListener("offline", () => showStatus());

  document.addEventListener("DOMContentLoaded", async () => {
    document.documentElement.classList.add("js");
    markRevealed();
    if (!canWork) return;
    if (session()?.dataset.shell) {
      // The service worker's copy of this page: the network is gone, review from this device.
      await renderOffline();
    }
    await showStatus();
    syncSoon();
  });
})();
