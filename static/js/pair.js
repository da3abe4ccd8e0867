// The interviewer's page (/pair/<token>): marks go to /api/pair/<token>/…, and the page asks
// the same API every 2 seconds for the clock and the candidate's notes. When the session
// moves on (another question, the follow-up, grading), the page reloads to show it.
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
    if (notes && notes.textContent !== q.answer) notes.textContent = q.answer || "(nothing typed yet)";
    const followupNotes = page.querySelector(".pair-followup-notes");
    if (followupNotes && q.followup_asked) {
      followupNotes.hidden = false;
      followupNotes.textContent = q.followup_answer;
    }
  }

  async function poll() {
    if (stopped) return;
    try {
      const response = await fetch(api, { headers: { Accept: "application/json" } });
      if (response.status === 404) {
        stopped = true;
        fail(detail(await response.json()));
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
      remaining = Math.max(0, remaining - 1);
      show(remaining);
    }
  }, 1000);
  setInterval(poll, 2000);
})();
