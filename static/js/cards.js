// Small enhancements; every page works without them.
"use strict";

// Derivations reveal one step at a time: opening the box shows the first step and a button.
function enableStepwise(box) {
  const steps = Array.from(box.querySelectorAll(".derivation-steps > li"));
  if (steps.length === 0) return;
  let shown = 1;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "next-step";
  const update = () => {
    steps.forEach((step, index) => { step.hidden = index >= shown; });
    button.hidden = shown >= steps.length;
    button.textContent = `Next step (${shown + 1} of ${steps.length})`;
  };
  button.addEventListener("click", () => {
    shown += 1;
    update();
    steps[shown - 1].focus?.();
  });
  box.appendChild(button);
  update();
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("details[data-stepwise]").forEach(enableStepwise);
});

// "/" focuses the search box, as on most documentation sites.
document.addEventListener("keydown", (event) => {
  const target = event.target;
  const typing = target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const box = document.getElementById("site-search-q");
    if (box) {
      event.preventDefault();
      box.focus();
      box.select();
    }
  }
});
