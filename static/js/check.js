// "Check my answer": type an answer to a card, see which rubric points it makes and which it
// misses before revealing the model answer. Added by script only: without it the card is as
// it was. The local grader answers at once; a configured interviewer model, after it.
"use strict";

// See cards.js: every script declares it, classic scripts share one global scope.
function csrf() {
  return document.querySelector('meta[name="csrf-token"]')?.content || "";
}

function enableCheck(card) {
  if (card.dataset.checkReady) return;
  card.dataset.checkReady = "1";
  const id = card.id.replace(/^card-/, "");
  const answer = card.querySelector(":scope > details.card-answer");
  if (!answer) return;

  // The server's limit, from the card's markup: the box takes no more than it accepts.
  const most = Number(card.dataset.answerMax);
  const maxlength = most > 0 ? ` maxlength="${most}"` : "";
  const box = document.createElement("div");
  box.className = "answer-check";
  box.innerHTML = `
    <label for="typed-${id}">Your answer <span class="hint">type it as you would say it, then check it against the rubric</span></label>
    <textarea id="typed-${id}" rows="4"${maxlength} spellcheck="true" aria-describedby="check-status-${id}"></textarea>
    <div class="answer-check-row">
      <button type="button" class="check-answer">Check my answer</button>
      <span class="hint"><kbd>Ctrl</kbd>+<kbd>Enter</kbd></span>
    </div>
    <p class="check-status" id="check-status-${id}" role="status" aria-live="polite"></p>
    <ul class="check-points" hidden></ul>
    <ul class="check-mistakes" hidden aria-label="Common mistakes your answer makes"></ul>
    <div class="check-model" hidden></div>`;
  answer.before(box);
  const textarea = box.querySelector("textarea");
  const button = box.querySelector("button.check-answer");
  const status = box.querySelector(".check-status");

  const run = () => check(card, id, textarea.value, box).catch(() => {
    status.textContent = "The check could not be made: are you still connected?";
    status.className = "check-status is-error";
  });
  button.addEventListener("click", run);
  // The review page reveals the answer on Space; on this button Space presses it instead.
  button.addEventListener("keydown", (event) => {
    if (event.key === " ") event.stopPropagation();
  });
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  });
}

async function post(id, answer, model) {
  const response = await fetch(`/api/cards/${encodeURIComponent(id)}/check`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() },
    body: JSON.stringify({ answer, model }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(body.detail) ? body.detail[0]?.msg : body.detail;
    throw new CheckError(detail || `the server answered ${response.status}`);
  }
  return body;
}

class CheckError extends Error {}

// The card's common mistakes as the card shows them: what is wrong and what is true instead.
function mistakeTexts(card) {
  return Array.from(card.querySelectorAll(":scope > details.card-answer ul.mistakes > li")).map(
    (li) => li.innerHTML.trim(),
  );
}

// "You said …" beside the correction, for each of the card's mistakes the answer states.
function mistakeItems(result, texts) {
  return (result.mistakes || []).map((index) => {
    const li = document.createElement("li");
    const said = document.createElement("span");
    said.className = "mistake-said";
    said.textContent = result.mistake_reasons?.[String(index)] || "You said something the card lists as a common mistake.";
    const truth = document.createElement("span");
    truth.className = "mistake-truth";
    if (texts[index]) truth.innerHTML = texts[index];
    else truth.textContent = result.mistake_corrections?.[String(index)] || "";
    li.append(said, truth);
    return li;
  });
}

// The rubric's points as the card shows them, keywords left out.
function rubricPoints(card) {
  return Array.from(card.querySelectorAll(":scope > details.card-answer ul.rubric > li")).map((li) => {
    const copy = li.cloneNode(true);
    copy.querySelector(".keywords")?.remove();
    return { item: li, html: copy.innerHTML.trim() };
  });
}

async function check(card, id, text, box) {
  const status = box.querySelector(".check-status");
  const list = box.querySelector(".check-points");
  const modelBox = box.querySelector(".check-model");
  if (!text.trim()) {
    status.textContent = "Type an answer first.";
    status.className = "check-status is-error";
    box.querySelector("textarea").focus();
    return;
  }
  status.textContent = "Checking…";
  status.className = "check-status";
  let result;
  try {
    result = await post(id, text, false);
  } catch (error) {
    if (!(error instanceof CheckError)) throw error;
    status.textContent = `Not checked: ${error.message}.`;
    status.className = "check-status is-error";
    return;
  }
  const points = rubricPoints(card);
  const made = new Set(result.points);
  list.replaceChildren(...points.map((point, index) => {
    const li = document.createElement("li");
    const hit = made.has(index);
    const open = !hit && (result.undecided || []).includes(index);
    li.className = hit ? "is-made" : open ? "is-missed is-undecided" : "is-missed";
    const mark = document.createElement("span");
    mark.className = "check-mark";
    mark.textContent = hit ? "Made" : open ? "Undecided" : "Missed";
    const body = document.createElement("span");
    body.className = "check-point";
    body.innerHTML = point.html;
    li.append(mark, " ", body);
    if (hit && result.reasons[String(index)]) {
      const why = document.createElement("small");
      why.className = "check-reason";
      why.textContent = result.reasons[String(index)];
      li.append(" ", why);
    }
    const withheld = result.withheld?.[String(index)];
    if (!hit && withheld) {
      const why = document.createElement("small");
      why.className = "check-withheld";
      why.textContent = `Not credited: ${withheld}`;
      li.append(" ", why);
    }
    point.item.classList.toggle("is-made", hit);
    point.item.classList.toggle("is-missed", !hit);
    return li;
  }));
  list.hidden = false;
  const mistakes = box.querySelector(".check-mistakes");
  mistakes.replaceChildren(...mistakeItems(result, mistakeTexts(card)));
  mistakes.hidden = !mistakes.children.length;
  const undecided = result.undecided || [];
  let said = `${made.size} of ${points.length} points made, by the local grader (a suggestion: judge for yourself).`;
  if (mistakes.children.length) {
    said += ` It states ${mistakes.children.length === 1 ? "a common mistake" : `${mistakes.children.length} common mistakes`}, below.`;
  }
  if (undecided.length) {
    const which = undecided.map((index) => index + 1).join(", ");
    const why = mistakes.children.length
      ? "the words are there, but an answer that states a common mistake has to say them more clearly"
      : "the words are there, but not clearly enough to call";
    said += ` It cannot decide on point${undecided.length > 1 ? "s" : ""} ${which}: ${why}.`;
  }
  status.textContent = said;
  status.className = undecided.length ? "check-status check-undecided" : "check-status";
  modelBox.hidden = true;
  if (result.model_available) offerModel(id, text, points, modelBox, undecided.length > 0);
}

// The interviewer model is offered, most of all where the local grader cannot decide.
function offerModel(id, text, points, modelBox, undecided) {
  const ask = document.createElement("button");
  ask.type = "button";
  ask.className = "ask-model";
  ask.textContent = undecided ? "Ask the interviewer model to decide" : "Ask the interviewer model too";
  ask.addEventListener("keydown", (event) => {
    if (event.key === " ") event.stopPropagation();
  });
  ask.addEventListener("click", () => askModel(id, text, points, modelBox));
  modelBox.replaceChildren(ask);
  modelBox.hidden = false;
}

// The interviewer model's opinion, shown beside the local one when it comes; never blocks.
async function askModel(id, text, points, modelBox) {
  modelBox.hidden = false;
  modelBox.textContent = "Asking the interviewer model…";
  let result;
  try {
    result = await post(id, text, true);
  } catch {
    modelBox.textContent = "The interviewer model could not be asked.";
    return;
  }
  const model = result.model;
  if (!model || model.error || !model.points) {
    modelBox.textContent = `Interviewer model: no opinion (${model?.error || "not configured"}).`;
    return;
  }
  const heading = document.createElement("p");
  heading.className = "check-model-head";
  heading.textContent = `Interviewer model (${model.name}): ${model.points.length} of ${points.length} points made`;
  const list = document.createElement("ul");
  for (const index of model.points) {
    const li = document.createElement("li");
    const body = document.createElement("span");
    body.innerHTML = points[index]?.html || `Point ${index + 1}`;
    const why = document.createElement("small");
    why.className = "check-reason";
    why.textContent = model.reasons[String(index)] || "";
    li.append(body, " ", why);
    list.append(li);
  }
  modelBox.replaceChildren(heading, list);
}

function enhanceChecks(root = document) {
  root.querySelectorAll("section.card[data-check]").forEach(enableCheck);
  // The mock's grading step: where the local grader cannot decide, the model is offered.
  root.querySelectorAll("button[data-ask-model]").forEach((button) => {
    if (button.dataset.askReady) return;
    button.dataset.askReady = "1";
    const modelBox = button.nextElementSibling;
    const points = Array.from(document.querySelectorAll(".mock-grade .rubric-check")).map((label) => {
      const copy = label.cloneNode(true);
      copy.querySelectorAll("input, .suggested, .suggested-reason, .undecided, .check-withheld").forEach((e) => e.remove());
      return { html: copy.innerHTML.trim() };
    });
    button.addEventListener("click", () => {
      button.hidden = true;
      askModel(button.dataset.card, button.dataset.answer, points, modelBox);
    });
  });
}

document.addEventListener("DOMContentLoaded", () => enhanceChecks());
document.addEventListener("ringside:content", () => enhanceChecks());
