// The browser's time zone for "today", the plan and the countdown (templates/plan/_zone.html).
// First visit (settings untouched): sent once, then the page is loaded again in that zone.
// Later, when the browser's zone differs from the stored one: offered, never switched unasked;
// "Keep" is remembered in this browser for that pair of zones.
(function () {
  const form = document.querySelector("form.zone-offer[data-zone]");
  if (!form) return;
  let browser = "";
  try {
    browser = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    return;
  }
  const stored = form.dataset.zone;
  if (!browser || browser === stored) return;
  const kept = `ringside-zone-kept:${stored}:${browser}`;

  function offer() {
    try {
      if (localStorage.getItem(kept)) return;
    } catch (error) { /* storage refused: offer anyway */ }
    form.querySelectorAll(".zone-browser").forEach((el) => { el.textContent = browser; });
    form.elements.timezone.value = browser;
    form.hidden = false;
    form.querySelector(".zone-keep").addEventListener("click", () => {
      try { localStorage.setItem(kept, "1"); } catch (error) { /* hidden for this page only */ }
      form.hidden = true;
    });
  }

  if (form.dataset.zoneChosen !== "0") {
    offer();
    return;
  }
  const token = document.querySelector('meta[name="csrf-token"]')?.content || "";
  fetch("/api/settings/timezone", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": token },
    body: JSON.stringify({ timezone: browser, first_visit: true }),
  })
    .then((response) => (response.ok ? response.json() : null))
    .then((body) => {
      if (!body) return; // an unknown zone (422) or no answer: keep the stored one, say nothing
      if (body.changed) window.location.reload(); // only the home page takes it: a GET
      else if (body.timezone !== browser) offer();
    })
    .catch(() => {});
})();
