// Small enhancements; every page works without them.
"use strict";

// The page's CSRF token: sent with every request that changes something.
// A function declaration, not a const: each script declares it, and classic scripts share
// one global scope, where a second const of the same name would stop the script.
function csrf() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

// Derivations reveal one step at a time: opening the box shows the first step and a button.
function enableStepwise(box) {
  if (box.dataset.enhanced) return;
  box.dataset.enhanced = "1";
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
    box.open = true;
    shown += 1;
    update();
  });
  box.appendChild(button);
  update();
}

// Order cards: move steps with the buttons, Alt+↑/↓ or drag, then check the order.
function enableOrdering(list) {
  if (list.dataset.enhanced) return;
  list.dataset.enhanced = "1";
  const items = () => Array.from(list.children);
  items().forEach((item) => {
    item.tabIndex = 0;
    item.draggable = true;
    const controls = document.createElement("span");
    controls.className = "order-controls";
    for (const [label, delta, symbol] of [["Move up", -1, "↑"], ["Move down", 1, "↓"]]) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "order-move";
      button.setAttribute("aria-label", label);
      button.textContent = symbol;
      button.addEventListener("click", () => move(item, delta));
      controls.appendChild(button);
    }
    item.appendChild(controls);
    item.addEventListener("keydown", (event) => {
      if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
        event.preventDefault();
        move(item, event.key === "ArrowUp" ? -1 : 1);
      }
    });
    item.addEventListener("dragstart", (event) => {
      event.dataTransfer.setData("text/plain", item.dataset.index);
      item.classList.add("is-dragging");
    });
    item.addEventListener("dragend", () => item.classList.remove("is-dragging"));
    item.addEventListener("dragover", (event) => event.preventDefault());
    item.addEventListener("drop", (event) => {
      event.preventDefault();
      const dragged = list.querySelector(`[data-index="${event.dataTransfer.getData("text/plain")}"]`);
      if (dragged && dragged !== item) list.insertBefore(dragged, item);
    });
  });
  function move(item, delta) {
    const all = items();
    const position = all.indexOf(item) + delta;
    if (position < 0 || position >= all.length) return;
    if (delta < 0) list.insertBefore(item, all[position]);
    else list.insertBefore(all[position], item);
    item.focus();
  }
  const check = document.createElement("button");
  check.type = "button";
  check.className = "order-check";
  check.textContent = "Check the order";
  const result = document.createElement("p");
  result.className = "drill-result";
  result.setAttribute("role", "status");
  check.addEventListener("click", () => {
    const placed = items().filter((item, position) => Number(item.dataset.index) === position).length;
    const total = items().length;
    const right = placed === total;
    result.textContent = right ? "Correct: every step is in place." : `${placed} of ${total} steps in place.`;
    result.className = `drill-result ${right ? "is-correct" : "is-wrong"}`;
    list.dispatchEvent(new CustomEvent("ringside:suggest", {
      bubbles: true, detail: { rating: right ? 3 : 1 },
    }));
    const answer = list.closest(".card")?.querySelector(".card-answer");
    if (answer) answer.open = true;
  });
  list.after(check, result);
}

// Grading a card embedded in a topic page, without leaving it.
async function gradeEmbedded(button) {
  const form = button.closest("form");
  const box = button.closest(".embedded-grade");
  const card = form.action.split("/review/")[1];
  const response = await fetch(`/api/review/${card}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() },
    body: JSON.stringify({
      rating: Number(button.dataset.rating),
      idempotency_key: form.elements.idempotency_key.value,
      source: "embedded",
    }),
  }).catch(() => null);
  if (!response || !response.ok) {
    form.submit();
    return;
  }
  const body = await response.json();
  const days = body.interval_days;
  const when = days < 1 ? `in ${Math.max(1, Math.round(days * 24 * 60))} min` : `in ${Math.round(days)} day${Math.round(days) === 1 ? "" : "s"}`;
  box.querySelector(".embedded-result").textContent = `Saved. This card comes back ${when}.`;
  box.querySelectorAll("button.grade").forEach((b) => b.classList.toggle("is-chosen", b === button));
}

function enhance(root = document) {
  root.querySelectorAll("details[data-stepwise]").forEach(enableStepwise);
  root.querySelectorAll("ol.order-shuffled").forEach(enableOrdering);
}

document.addEventListener("DOMContentLoaded", () => enhance());
document.addEventListener("ringside:content", () => enhance());

document.addEventListener("click", (event) => {
  const button = event.target.closest(".embedded-grade button.grade");
  if (button) {
    event.preventDefault();
    gradeEmbedded(button);
  }
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
