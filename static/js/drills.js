// Numeric drills: check an answer without leaving the page. Without this script the form
// posts to the card page, which shows the same verdict.
"use strict";

// The page's CSRF token: sent with every request that changes something.
// A function declaration, not a const: each script declares it, and classic scripts share
// one global scope, where a second const of the same name would stop the script.
function csrf() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

const started = new Map();

function show(form, text, state) {
  const result = form.querySelector(".drill-result");
  result.textContent = text;
  result.classList.remove("is-correct", "is-wrong", "is-error");
  if (state) result.classList.add(state);
}

async function check(event) {
  const form = event.target;
  if (!form.matches(".drill-form")) return;
  event.preventDefault();
  const answer = form.elements.answer.value;
  const seed = form.elements.seed ? Number(form.elements.seed.value) : null;
  const since = started.get(form);
  const body = { answer, seed, duration_ms: since ? Math.round(performance.now() - since) : null };
  let response;
  try {
    response = await fetch(`/api/cards/${encodeURIComponent(form.dataset.card)}/attempts`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body),
    });
  } catch {
    if (!navigator.onLine || form.closest("[data-offline]")) {
      // Leaving the page would lose it offline: compare with the answer and grade yourself.
      show(form, "Offline: answers are checked online. Show the answer to compare.", "is-error");
      return;
    }
    form.submit();  // blocked: let the server page answer instead
    return;
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ") : data.detail;
    show(form, detail || "That answer could not be checked.", "is-error");
    return;
  }
  show(form, data.message, data.correct ? "is-correct" : "is-wrong");
  form.dispatchEvent(new CustomEvent("ringside:suggest", {
    bubbles: true, detail: { rating: data.suggested_rating },
  }));
  const card = form.closest(".card");
  const details = card && card.querySelector(".card-answer");
  if (details) details.open = true;
}

document.addEventListener("submit", check);
document.addEventListener("focusin", (event) => {
  const form = event.target.closest && event.target.closest(".drill-form");
  if (form && !started.has(form)) started.set(form, performance.now());
});
