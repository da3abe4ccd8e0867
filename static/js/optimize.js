// The settings page's "Fit to my reviews": a fit takes a few seconds on a long history, so the
// button says it is working and counts the seconds until the page comes back.
"use strict";

document.querySelectorAll("form.optimize-form").forEach((form) => {
  form.addEventListener("submit", () => {
    const button = form.querySelector("button");
    const output = form.querySelector("output");
    const started = Date.now();
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    const tick = () => {
      const seconds = Math.round((Date.now() - started) / 1000);
      output.textContent = `${form.dataset.progress} ${seconds} s`;
    };
    tick();
    setInterval(tick, 1000);
  });
});
