// The interviewer's page (/pair/<token>): marks go to /api/pair/<token>/…, and the page fetches
// the same API's view whenever its stream (live.js) tells of a change: the candidate's notes,
// another tab's marks, a revoked link. When the session moves on (another question, the
// follow-up, grading), the page reloads to show it.
(() => {
  const page = document.querySelector(".pair-page");
  if (!page) return;
  const token = location.pathname.split("/")[2];
  const api = `/api/pair/${token}`;
  const position = Number(page.dataset.position) || null;
  const clock = page.querySelector(".pair-clock");
  const error = page.querySelector(".pair-error");
  let remaining = Number(clock?.dataset.remaining || 0);
  let stopped = false;
  let live = null;

  function show(seconds) {
    if (!clock) return;
    const s = Math.max(0, Math.floor(seconds));
    clock.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  }

  function fail(message) {
    error.textContent = message;
    error.hidden = false;
  }

  function detail(body) {
    const d = body && body.detail;
    if (Array.isArray(d)) return d.map((e) => e.msg).join("; ");
    return d || "That could not be saved.";
  }

  function update(view) {
    const q = view.current;
    const moved = view.step !== page.dataset.step
      || String(q ? q.position : "") !== page.dataset.position
      || String(q ? q.phase : "") !== page.dataset.phase;
    if (moved) {
      location.reload();
      return;
    }
    remaining = view.remaining_seconds;
    show(remaining);
    if (!q) return;
    const notes = page.querySelector(".pair-notes");
    const typed = q.answer || "(nothing typed yet)";
    if (notes && notes.textContent !== typed) notes.textContent = typed;
    const followupNotes = page.querySelector(".pair-followup-notes");
    if (followupNotes && q.followup_asked) {
      followupNotes.hidden = false;
      followupNotes.textContent = q.followup_answer;
    }
    // The marks as stored: another tab (or device) of the interviewer's may have changed them.
    for (const point of q.rubric) {
      const box = page.querySelector(`.pair-points input[value="${point.index}"]`);
      if (box && box !== document.activeElement) box.checked = point.marked;
    }
    for (const followup of q.followups) {
      const radio = page.querySelector(`.pair-followups input[value="${followup.index}"]`);
      if (radio) radio.checked = followup.chosen;
    }
    page.querySelectorAll(".pair-rating button").forEach((b) => {
      b.setAttribute("aria-pressed", String(Number(b.value) === q.interviewer_rating));
    });
  }

  async function poll() {
    if (stopped) return;
    try {
      const response = await fetch(api, { headers: { Accept: "application/json" } });
      if (response.status === 404) {
        stopped = true;  // revoked, expired, or the interview ended: this page opens nothing
        live?.stop();
        fail(detail(await response.json()));
        page.querySelectorAll("fieldset, .pair-rating button").forEach((field) => { field.disabled = true; });
        return;
      }
      if (response.ok) {
        error.hidden = true;
        update(await response.json());
      }
    } catch {
      fail("Cannot reach the server; trying again.");
    }
  }

  async function send(what, body) {
    try {
      const response = await fetch(`${api}/${what}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ position, ...body }),
      });
      const answer = await response.json();
      if (!response.ok) {
        fail(detail(answer));
        return false;
      }
      error.hidden = true;
      update(answer);
      return true;
    } catch {
      fail("Cannot reach the server: that was not saved.");
      return false;
    }
  }

  page.querySelector(".pair-points")?.addEventListener("change", () => {
    const points = [...page.querySelectorAll('.pair-points input[name="point"]:checked')]
      .map((box) => Number(box.value));
    send("points", { points });
  });
  page.querySelector(".pair-followups")?.addEventListener("change", (event) => {
    if (event.target.name === "followup") send("followup", { index: Number(event.target.value) });
  });
  page.querySelectorAll(".pair-rating button").forEach((button) => {
    button.addEventListener("click", async () => {
      if (await send("rating", { rating: Number(button.value) })) {
        page.querySelectorAll(".pair-rating button").forEach((b) => {
          b.setAttribute("aria-pressed", b === button ? "true" : "false");
        });
      }
    });
  });

  setInterval(() => {
    if (page.dataset.step === "answer" || page.dataset.step === "followup") {
      const before = remaining;
      remaining = Math.max(0, remaining - 1);
      show(remaining);
      // Time running out changes the step with nothing written, so with no news: ask.
      if (before > 0 && remaining === 0) setTimeout(poll, 1500);
    }
  }, 1000);
  live = liveUpdates({ stream: `${api}/events`, version: page.dataset.version, refresh: poll });
})();
