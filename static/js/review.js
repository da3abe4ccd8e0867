// The review page, keyboard first: Space/Enter shows the answer, 1–4 grade, u undoes,
// n reveals the next derivation step, ? lists the keys. Without this script every button
// is a plain form and the page still works.
"use strict";

// The page's CSRF token: sent with every request that changes something.
// A function declaration, not a const: each script declares it, and classic scripts share
// one global scope, where a second const of the same name would stop the script.
function csrf() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

(() => {
  let shownAt = performance.now();
  let busy = false;

  const session = () => document.getElementById("review-session");
  const answerBox = () => session()?.querySelector(".card-answer");
  const revealed = () => Boolean(answerBox()?.open);

  function markRevealed() {
    session()?.classList.toggle("is-revealed", revealed());
  }

  function reveal() {
    const box = answerBox();
    if (box && !box.open) {
      box.open = true;
      markRevealed();
      session().querySelector(".grade-3")?.focus();
    }
  }

  async function load(extra = "") {
    const root = session();
    const topics = root?.dataset.topics || "";
    const query = [topics, "fragment=1", extra].filter(Boolean).join("&");
    const response = await fetch(`/review?${query}`, { headers: { Accept: "text/html" } });
    if (!response.ok) throw new Error(`review page answered ${response.status}`);
    root.outerHTML = await response.text();
    shownAt = performance.now();
    document.dispatchEvent(new Event("ringside:content"));
    markRevealed();
    const first = session().querySelector(".drill-form input[name=answer]");
    (first || session()).focus?.();
  }

  async function grade(rating) {
    const root = session();
    if (busy || !root?.dataset.card || !revealed()) return;
    busy = true;
    try {
      const response = await fetch(`/api/review/${encodeURIComponent(root.dataset.card)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() },
        body: JSON.stringify({
          rating,
          idempotency_key: root.dataset.key,
          duration_ms: Math.round(performance.now() - shownAt),
        }),
      });
      if (!response.ok) throw new Error(`grading answered ${response.status}`);
      await load();
    } catch (error) {
      // Fall back to the plain form, which the server answers with the next card.
      root.querySelector(`.grade-${rating}`)?.closest("form")?.submit();
    } finally {
      busy = false;
    }
  }

  async function undo() {
    if (busy) return;
    busy = true;
    try {
      const response = await fetch("/api/review/undo", { method: "POST", headers: { Accept: "application/json", "X-CSRF-Token": csrf() } });
      if (response.status === 404) return;
      if (!response.ok) throw new Error(`undo answered ${response.status}`);
      const body = await response.json();
      await load(`card=${encodeURIComponent(body.card_id)}`);
    } finally {
      busy = false;
    }
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
    }
  });

  document.addEventListener("toggle", (event) => {
    if (event.target.classList?.contains("card-answer")) markRevealed();
  }, true);

  // A checked numeric answer or order suggests a grade: show the answer and focus that button.
  document.addEventListener("ringside:suggest", (event) => {
    if (!session()?.contains(event.target)) return;
    reveal();
    const button = session().querySelector(`.grade-${event.detail.rating}`);
    session().querySelectorAll(".grade").forEach((b) => b.classList.remove("is-suggested"));
    button?.classList.add("is-suggested");
    button?.focus();
  });

  document.addEventListener("DOMContentLoaded", () => {
    document.documentElement.classList.add("js");
    markRevealed();
  });
})();
