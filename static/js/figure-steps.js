// Figures drawn in steps (app/content/figures.py): Previous and Next buttons under the figure,
// and the arrow keys while the figure has focus. Without this script the figure shows step 1
// and its description says what every step shows.
"use strict";

function enableFigureSteps(svg) {
  const count = Number(svg.dataset.steps);
  const parts = Array.from(svg.querySelectorAll("[data-step]"));
  const region = svg.closest(".figure-scroll");
  const figure = svg.closest("figure");
  if (!count || !region || !figure) return;
  let current = 0;

  const controls = document.createElement("div");
  controls.className = "figure-steps";
  const previous = document.createElement("button");
  previous.type = "button";
  previous.textContent = "◀ Previous";
  const next = document.createElement("button");
  next.type = "button";
  next.textContent = "Next ▶";
  const status = document.createElement("output");
  status.setAttribute("aria-live", "polite");
  controls.append(previous, next, status);
  region.after(controls);

  const show = (step) => {
    current = Math.max(0, Math.min(count - 1, step));
    parts.forEach((part) => {
      if (Number(part.dataset.step) === current) part.removeAttribute("display");
      else part.setAttribute("display", "none");
    });
    // A step's own words, when it has them, are read out with its number.
    const label = svg.querySelector(`[data-step="${current}"][aria-label]`);
    status.textContent = `Step ${current + 1} of ${count}` + (label ? `: ${label.getAttribute("aria-label")}` : "");
    previous.disabled = current === 0;
    next.disabled = current === count - 1;
  };
  previous.addEventListener("click", () => show(current - 1));
  next.addEventListener("click", () => show(current + 1));
  region.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
    if (event.key === "Home") show(0);
    else if (event.key === "End") show(count - 1);
    else if (event.key in moves) show(current + moves[event.key]);
    else return;
    event.preventDefault();
  });
  region.setAttribute("aria-keyshortcuts", "ArrowLeft ArrowRight Home End");
  show(0);
}

document.querySelectorAll("svg.figure-svg[data-steps]").forEach(enableFigureSteps);
