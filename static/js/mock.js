// A mock interview question: the countdown, autosave while typing and on leaving the page,
// a local copy in case the network drops, and submission at zero. The server keeps the
// deadline; this script only shows it.
"use strict";

// The page's CSRF token: sent with every request that changes something.
// A function declaration, not a const: each script declares it, and classic scripts share
// one global scope, where a second const of the same name would stop the script.
function csrf() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

(() => {
  const page = document.querySelector(".mock-page");
  const form = page?.querySelector(".mock-answer");
  const box = form?.querySelector("textarea");
  const mockId = page?.dataset.mock;
  const part = form?.dataset.part;
  const draftKey = `ringside-mock-${mockId}-q${page?.dataset.position}-${part}`;
  let timer = null;
  let submitting = false;

  const status = (text) => {
    const state = form?.querySelector(".save-state");
    if (state) state.textContent = text;
  };

  function counter() {
    const max = Number(box.dataset.max);
    const count = box.value.length;
    form.querySelector(".char-count").textContent = count.toLocaleString();
    const over = count > max;
    box.setAttribute("aria-invalid", String(over));
    if (over) status(`Too long by ${(count - max).toLocaleString()} characters: shorten it (nothing is cut)`);
    return !over;
  }

  async function save(useBeacon = false) {
    if (!box || !counter()) return;
    const body = JSON.stringify({ part, text: box.value });
    const headers = { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() };
    if (useBeacon) {
      // The page is going away: keepalive lets the request finish after it has gone.
      fetch(`/api/mock/${mockId}/answer`, { method: "PUT", keepalive: true, headers, body }).catch(() => {});
      return;
    }
    status("Saving…");
    try {
      const response = await fetch(`/api/mock/${mockId}/answer`, {
        method: "PUT", headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() }, body,
      });
      const data = await response.json().catch(() => ({}));
      if (response.ok) {
        status(`Saved at ${new Date().toLocaleTimeString()}`);
        localStorage.removeItem(draftKey);
      } else if (response.status === 401 || response.status === 403) {
        // Signed out (the session expired): the text stays in this browser and is saved
        // when this page is open again after signing in.
        status("Not saved: you are signed out. Your text is kept here; sign in again in another tab, then reload.");
      } else {
        const detail = Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ") : data.detail;
        status(`Not saved: ${detail || response.status}`);
      }
    } catch {
      status("Not saved: offline. A copy is kept in this browser and saved when you are back.");
    }
  }

  if (box) {
    // A draft kept locally (say, the network dropped) comes back if the server has less.
    const local = localStorage.getItem(draftKey);
    if (local && local.length > box.value.length) {
      box.value = local;
      save();
    }
    box.addEventListener("input", () => {
      localStorage.setItem(draftKey, box.value);
      counter();
      status("Editing…");
      clearTimeout(timer);
      timer = setTimeout(save, 1200);
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") save(true);
    });
    window.addEventListener("pagehide", () => { if (!submitting) save(true); });
    form.addEventListener("submit", (event) => {
      if (!counter()) {
        event.preventDefault();
        return;
      }
      if (!navigator.onLine) {
        // Submitting now would leave this page for the browser's offline error.
        event.preventDefault();
        submitPending = true;
        connection();
        return;
      }
      submitting = true;  // the local copy stays until a later save succeeds
    });
  }

  // Say plainly when the network is gone, and that the text is safe meanwhile.
  let submitPending = false;
  const banner = document.createElement("p");
  banner.className = "connection-status";
  banner.setAttribute("role", "status");
  banner.hidden = true;
  // In the bar that stays at the top of the screen, next to the clock.
  if (form) (page.querySelector(".mock-bar") || form).append(banner);

  function connection() {
    if (!form) return;
    banner.hidden = navigator.onLine;
    banner.textContent = submitPending
      ? "Offline: your answer is kept in this browser and is submitted as soon as the network returns. Keep this page open."
      : "Offline: keep writing. Everything you type is kept in this browser and saved when the network returns.";
  }

  window.addEventListener("offline", connection);
  window.addEventListener("online", async () => {
    connection();
    await save();
    if (submitPending && !submitting) {
      submitPending = false;
      submitting = true;
      form.requestSubmit ? form.requestSubmit() : form.submit();
    }
  });
  connection();

  const clock = page?.querySelector(".countdown");
  if (clock) {
    const end = performance.now() + Number(clock.dataset.remaining) * 1000;
    const tick = () => {
      const left = Math.max(0, Math.round((end - performance.now()) / 1000));
      clock.textContent = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      clock.classList.toggle("is-low", left <= 60);
      if (left === 0) {
        if (form && !navigator.onLine) {
          submitPending = true;  // sent, with the text kept here, when the network returns
          connection();
        } else if (form && !submitting) {
          submitting = true;
          form.requestSubmit ? form.requestSubmit() : form.submit();
        }
        return;
      }
      setTimeout(tick, 250);
    };
    tick();
  }

  page?.querySelector(".abandon-form")?.addEventListener("submit", (event) => {
    if (!confirm(event.target.dataset.confirm)) event.preventDefault();
  });
})();
