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
  const voice = recorder(page?.querySelector(".voice"), mockId);

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
      if (voice?.busy()) {
        // Hand in after the recording has stopped and its last chunks are uploaded.
        event.preventDefault();
        voice.finish().then(() => { submitting = true; form.submit(); });
        return;
      }
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

  document.querySelectorAll(".abandon-form, .delete-form").forEach((confirmed) => {
    confirmed.addEventListener("submit", (event) => {
      if (!confirm(event.target.dataset.confirm)) event.preventDefault();
    });
  });
})();

// Answer out loud: MediaRecorder hands over a chunk every few seconds; each is uploaded with
// its number (a resend of the same number changes nothing on the server), so a closed tab or
// a dropped connection keeps all but the last few seconds. The microphone is asked for only
// when the button is clicked. A level meter (Web Audio AnalyserNode) shows it is listening.
function recorder(panel, mockId) {
  if (!panel) return null;
  const startButton = panel.querySelector(".voice-start");
  const live = panel.querySelector(".voice-live");
  const meter = panel.querySelector(".voice-level");
  const elapsed = panel.querySelector(".voice-elapsed");
  const status = panel.querySelector(".voice-status");
  const { part, position } = panel.dataset;
  let take = Number(panel.dataset.take);
  const SLICE_MS = 3000;
  let media = null;
  let stream = null;
  let audio = null;
  let seq = 0;
  let queue = [];
  let sending = null;
  let refused = false;
  let began = 0;
  let ticking = null;
  let stopped = null;
  let savedBytes = 0;  // of the take being recorded, uploaded so far

  const say = (text, error = false) => {
    status.textContent = text;
    status.classList.toggle("is-error", error);
  };

  if (!window.MediaRecorder || !navigator.mediaDevices?.getUserMedia) {
    startButton.disabled = true;
    say("This browser cannot record audio here (it needs MediaRecorder and a secure page).");
    return null;
  }

  const captions = liveCaptions(panel);

  function kind() {
    for (const type of ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/mp4", "audio/webm"]) {
      if (MediaRecorder.isTypeSupported(type)) return type;
    }
    return "";
  }

  const url = (chunk) => `/api/mock/${mockId}/audio/${position}/${part}/${chunk.take}/${chunk.seq}`;

  async function send(chunk) {
    const response = await fetch(url(chunk), {
      method: "PUT",
      headers: { "Content-Type": chunk.type, Accept: "application/json", "X-CSRF-Token": csrf() },
      body: chunk.blob,
    });
    const data = await response.json().catch(() => ({}));
    if (response.ok) return data;
    const detail = Array.isArray(data.detail) ? data.detail.map((d) => d.msg).join("; ") : data.detail;
    const error = new Error(detail || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }

  // One upload at a time, in order; a network failure waits and retries the same chunk.
  async function pump() {
    if (sending) return sending;
    sending = (async () => {
      let wait = 1000;
      while (queue.length && !refused) {
        try {
          const saved = await send(queue[0]);
          const sent = queue.shift();
          if (sent.take === take) savedBytes += sent.blob.size;
          wait = 1000;
          if (media) say(`Recording · ${Math.round(saved.bytes_total / 1024)} kB saved`);
        } catch (error) {
          if (error.status && error.status !== 429 && error.status < 500) {
            refused = true;  // past a cap, or time is up: what was saved stays
            say(`Recording stopped: ${error.message}`, true);
            stop();
            break;
          }
          say(`Not uploaded yet (${navigator.onLine ? "retrying" : "offline"}); the recording is kept in this page.`, true);
          await new Promise((resolve) => setTimeout(resolve, wait));
          wait = Math.min(wait * 2, 15000);
        }
      }
      sending = null;
    })();
    return sending;
  }

  function meterLoop(analyser) {
    const samples = new Uint8Array(analyser.fftSize);
    const draw = () => {
      if (!audio) return;
      analyser.getByteTimeDomainData(samples);
      let sum = 0;
      for (const s of samples) sum += ((s - 128) / 128) ** 2;
      // Loudness in decibels, -60 dB (silence) to 0 dB (full scale), as a 0–1 meter.
      const decibels = 20 * Math.log10(Math.sqrt(sum / samples.length) || 1e-6);
      meter.value = Math.max(0, Math.min(1, (decibels + 60) / 60));
      requestAnimationFrame(draw);
    };
    draw();
  }

  async function start() {
    startButton.disabled = true;
    say("Asking for the microphone…");
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (error) {
      startButton.disabled = false;
      say(`No microphone: ${error.name === "NotAllowedError" ? "permission was refused" : error.message}. You can still type.`, true);
      return;
    }
    const type = kind();
    media = new MediaRecorder(stream, { ...(type ? { mimeType: type } : {}), audioBitsPerSecond: 32000 });
    seq = 0;
    refused = false;
    media.addEventListener("dataavailable", (event) => {
      if (!event.data || !event.data.size) return;
      const chunk = { take, seq: seq++, blob: event.data, type: (media?.mimeType || type || event.data.type || "audio/webm") };
      queue.push(chunk);
      pump();
    });
    stopped = new Promise((resolve) => media.addEventListener("stop", resolve, { once: true }));
    audio = new AudioContext();
    const analyser = audio.createAnalyser();
    analyser.fftSize = 1024;
    audio.createMediaStreamSource(stream).connect(analyser);
    meterLoop(analyser);
    media.start(SLICE_MS);
    began = performance.now();
    const tick = () => {
      const s = Math.floor((performance.now() - began) / 1000);
      elapsed.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
    };
    ticking = setInterval(tick, 500);
    startButton.hidden = true;
    live.hidden = false;
    captions?.start();
    holdQuestion(true);
    panel.querySelector(".voice-stop").focus({ preventScroll: true });
    say("Recording. Speak your answer; it uploads as you go.");
  }

  // While recording, the question stays at the top of the screen, under the clock, with the
  // recorder just below it: what is being answered, and the Stop button, are in view the
  // whole time, wherever the page is scrolled to (to type notes, say).
  function holdQuestion(on) {
    const page = panel.closest(".mock-page");
    const question = page?.querySelector(".mock-question, .followup-question");
    if (!page || !question) return;
    const bar = page.querySelector(".mock-bar");
    page.style.setProperty("--bar-height", `${bar ? bar.offsetHeight : 0}px`);
    page.classList.toggle("is-recording", on);
    // The recorder (its clock, level and Stop button) sticks just under the question.
    page.style.setProperty("--question-height", `${question.offsetHeight}px`);
    if (on) question.scrollIntoView({ block: "start", behavior: "instant" });
  }

  // A take just finished, to hear before submitting: the server's copy, which has the
  // duration the recorder could not write, so the player can show it and seek.
  function playable(number, bytes) {
    const figure = document.createElement("figure");
    figure.className = "voice-take";
    const caption = document.createElement("figcaption");
    caption.textContent = `Take ${number} (${Math.max(1, Math.round(bytes / 1024))} kB): listen before you submit`;
    const player = document.createElement("audio");
    player.controls = true;
    player.preload = "metadata";
    player.src = `/api/mock/${mockId}/audio/${position}/${part}/${number}`;
    figure.append(caption, player);
    if (panel.hasAttribute("data-transcribe")) {
      // The server transcribes takes: ask for this one now its last chunk is in.
      const box = transcriptBox(`/api/mock/${mockId}/transcripts/${position}/${part}/${number}`, part, number, panel.dataset.transcriptMax);
      figure.append(box);
      // Only a whole take is sent: with chunks still to upload it waits for a click instead.
      transcript(box, queue.length === 0);
    }
    panel.append(figure);
  }

  function stop() {
    if (media && media.state !== "inactive") media.stop();
    stream?.getTracks().forEach((track) => track.stop());
    audio?.close();
    audio = null;
    clearInterval(ticking);
    captions?.stop();
    live.hidden = true;
    holdQuestion(false);
  }

  // Stop, then wait for the last chunks to reach the server.
  async function finish() {
    const wasRecording = media && media.state !== "inactive";
    stop();
    if (wasRecording) await stopped;
    media = null;
    // Wait for the upload, but not for ever: a submit at zero must not hang on a bad network
    // (what is still queued goes with keepalive as the page leaves).
    await Promise.race([pump(), new Promise((resolve) => setTimeout(resolve, 10000))]);
    if (!refused) {
      say(queue.length ? "Some audio could not be uploaded." : "Recording saved: play it back below. Record again for another take, or submit.", Boolean(queue.length));
    }
    if (savedBytes > 0) playable(take, savedBytes);
    savedBytes = 0;
    take += 1;  // a new recording is a new take
    startButton.hidden = false;
    startButton.disabled = refused;
    startButton.textContent = "Record another take";
    startButton.focus();
  }

  startButton.addEventListener("click", start);
  panel.querySelector(".voice-stop").addEventListener("click", () => finish());
  // Leaving the page: send what is queued with keepalive (chunks are a few kB).
  window.addEventListener("pagehide", () => {
    for (const chunk of queue) {
      fetch(url(chunk), {
        method: "PUT", keepalive: true, body: chunk.blob,
        headers: { "Content-Type": chunk.type, "X-CSRF-Token": csrf() },
      }).catch(() => {});
    }
  });
  return { busy: () => Boolean((media && media.state !== "inactive") || queue.length), finish };
}

// Interview with a friend: make (or replace) the interviewer's link, show it once with a copy
// button, and revoke it. Only a hash of the link is kept, so a reload cannot show it again.
(() => {
  const panel = document.querySelector(".pair-panel");
  if (!panel) return;
  const api = `/api/mock/${panel.dataset.mock}/pair`;
  const box = panel.querySelector(".pair-link");
  const url = panel.querySelector(".pair-url");
  const live = panel.querySelector(".pair-live");
  const create = panel.querySelector(".pair-create");
  const revoke = panel.querySelector(".pair-revoke");
  const status = panel.querySelector(".pair-status");
  const headers = { Accept: "application/json", "X-CSRF-Token": csrf() };

  async function refused(response) {
    const body = await response.json().catch(() => ({}));
    status.textContent = typeof body.detail === "string" ? body.detail : "That did not work; reload and try again.";
  }

  create.addEventListener("click", async () => {
    const response = await fetch(api, { method: "POST", headers }).catch(() => null);
    if (!response) { status.textContent = "Cannot reach the server."; return; }
    if (response.status !== 201) { await refused(response); return; }
    const link = await response.json();
    url.value = new URL(link.invite_url, location.origin).href;
    box.hidden = false;
    live.hidden = true;
    revoke.hidden = false;
    create.textContent = "Make a new link";
    const until = new Date(link.expires_at);
    status.textContent = `Send this link to your interviewer. It works until this session ends or ${until.toLocaleString()}.`;
    url.select();
  });

  panel.querySelector(".pair-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(url.value);
      status.textContent = "Copied.";
    } catch {
      url.select();
      status.textContent = "Select the link and copy it.";
    }
  });

  revoke.addEventListener("click", async () => {
    const response = await fetch(api, { method: "DELETE", headers }).catch(() => null);
    if (!response) { status.textContent = "Cannot reach the server."; return; }
    if (response.status !== 204) { await refused(response); return; }
    box.hidden = true;
    live.hidden = true;
    revoke.hidden = true;
    url.value = "";
    create.textContent = "Make a link";
    status.textContent = "The link is revoked: it opens nothing any more.";
  });
})();

// A friend interviewing by link, live on the candidate's screen: while answering, that they
// are taking notes or have chosen a follow-up (never what); when grading, their marks beside
// the rubric and the rating they propose. The stream (live.js) says when to fetch the
// session's JSON again; the candidate's own typing and steps are news this page ignores.
(() => {
  const page = document.querySelector(".mock-page");
  if (!page || !page.dataset.version || typeof liveUpdates !== "function") return;
  const api = `/api/mock/${page.dataset.mock}`;
  const position = Number(page.dataset.position);
  const RATINGS = { 1: "Again", 2: "Hard", 3: "Good", 4: "Easy" };
  const activity = page.querySelector(".interviewer-live");
  const summary = page.querySelector(".interviewer-marks");

  function showActivity(now) {
    if (!activity) return;
    const noting = Boolean(now?.noting);
    const chose = Boolean(now?.followup_chosen);
    activity.textContent = noting && chose
      ? "Your interviewer is taking notes and has chosen a follow-up for when you submit."
      : noting ? "Your interviewer is taking notes."
        : chose ? "Your interviewer has chosen a follow-up for when you submit." : "";
    activity.hidden = !(noting || chose);
  }

  function showMarks(marks) {
    if (!summary) return;
    const points = marks?.points ?? null;
    const rating = marks?.rating ?? null;
    page.querySelectorAll(".interviewer-mark").forEach((mark) => {
      const on = points !== null && points.includes(Number(mark.dataset.point));
      mark.hidden = !on;
      mark.textContent = on ? "your interviewer marked it" : "";
    });
    summary.replaceChildren();
    summary.hidden = points === null && !rating;
    if (summary.hidden) return;
    summary.append("Your interviewer marked ");
    if (points !== null) summary.append(`${points.length} of ${summary.dataset.total} points made`);
    if (points !== null && rating) summary.append(" and ");
    if (rating) {
      const name = document.createElement("strong");
      name.textContent = RATINGS[rating] || String(rating);
      summary.append("proposed ", name);
    }
    summary.append(". Their marks are beside the grader's suggestions below; your grade is yours.");
  }

  async function refresh() {
    try {
      const response = await fetch(api, { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const session = await response.json();
      page.dataset.version = session.version;
      const question = session.questions.find((q) => q.position === position);
      if (!question) return;
      showActivity(question.interviewer_activity);
      if (page.dataset.step === "grade" && question.phase === "grading") showMarks(question.interviewer);
    } catch {
      // Offline: the next news or poll tries again (the answer's own banner says so).
    }
  }

  liveUpdates({
    stream: `${api}/events`,
    version: page.dataset.version,
    refresh,
    ignore: ["notes", "step"],  // this page's own doing
  });
})();

// What was said in a take, when the server transcribes takes: the state ("Transcribing…",
// "failed" with a retry), then the transcript in a box saved as it is edited (as the typed
// answer is), and graded with it. Nothing here blocks the page: it asks, then looks again.
function transcriptBox(url, part, take, max) {
  const box = document.createElement("div");
  box.className = "voice-transcript";
  box.dataset.url = url;
  box.dataset.state = "none";
  const id = `said-${part}-${take}`;
  const label = document.createElement("label");
  label.htmlFor = id;
  label.textContent = "What you said";
  const which = document.createElement("span");
  which.className = "visually-hidden";
  which.textContent = ` in recording ${take}`;
  label.append(which);
  const state = document.createElement("p");
  state.className = "transcript-state";
  state.setAttribute("role", "status");
  state.setAttribute("aria-live", "polite");
  const text = document.createElement("textarea");
  text.id = id;
  text.className = "transcript-text";
  text.rows = 4;
  text.spellcheck = true;
  text.dataset.max = max || "20000";
  text.hidden = true;
  const retry = document.createElement("button");
  retry.type = "button";
  retry.className = "transcript-retry";
  retry.hidden = false;
  retry.textContent = "Transcribe";
  state.textContent = "Not transcribed yet.";
  box.append(label, state, text, retry);
  return box;
}

function transcript(box, queueNow = false) {
  const { url } = box.dataset;
  const state = box.querySelector(".transcript-state");
  const text = box.querySelector(".transcript-text");
  const retry = box.querySelector(".transcript-retry");
  const headers = { Accept: "application/json", "X-CSRF-Token": csrf() };
  let polling = null;
  let saving = null;
  let dirty = false;

  const say = (words, error = false) => {
    state.textContent = words;
    state.classList.toggle("is-error", error);
  };

  function show(data) {
    const arrived = box.dataset.state === "pending" && data.state === "done";
    box.dataset.state = data.state;
    if (data.state === "pending") {
      say("Transcribing…");
      text.hidden = true;
      retry.hidden = true;
      wait();
    } else if (data.state === "failed") {
      say(`Transcription failed: ${data.error || "no reason given"}.`, true);
      text.hidden = true;
      retry.hidden = false;
      retry.textContent = "Retry";
    } else {
      if (!dirty) text.value = data.text;  // never over what is being typed
      text.hidden = false;
      retry.hidden = true;
      const grading = document.querySelector(".mock-page")?.dataset.step === "grade";
      if (arrived && grading) say("Transcribed. Reload the page to see the suggested points with it (your ticks are not kept).");
      else say(data.edited ? "Your corrected transcript: it is graded with your typed answer." : "Edit it where it misheard you: it is graded with your typed answer.");
    }
  }

  // Look again while it is being transcribed: soon at first, then less often.
  let delay = 1500;
  function wait() {
    clearTimeout(polling);
    polling = setTimeout(async () => {
      const response = await fetch(url, { headers: { Accept: "application/json" } }).catch(() => null);
      delay = Math.min(delay * 1.5, 15000);
      if (response?.ok) show(await response.json());
      else wait();
    }, delay);
  }

  async function queue() {
    retry.disabled = true;
    say("Transcribing…");
    const response = await fetch(url, { method: "POST", headers }).catch(() => null);
    retry.disabled = false;
    if (response?.ok) {
      delay = 1500;
      show(await response.json());
    } else {
      const data = await response?.json().catch(() => ({}));
      say(`Transcription failed: ${data?.detail || (navigator.onLine ? "the server did not answer" : "offline")}.`, true);
      retry.hidden = false;
      retry.textContent = "Retry";
    }
  }

  async function save() {
    if (text.value.length > Number(text.dataset.max)) {
      say(`Not saved: at most ${Number(text.dataset.max).toLocaleString()} characters.`, true);
      return;
    }
    const body = JSON.stringify({ text: text.value });
    saving = fetch(url, { method: "PUT", headers: { ...headers, "Content-Type": "application/json" }, body }).catch(() => null);
    const response = await saving;
    saving = null;
    if (response?.ok) {
      dirty = false;
      const page = document.querySelector(".mock-page");
      say(page?.dataset.step === "grade" ? "Saved. Reload the page to see the suggested points with it (your ticks are not kept)." : "Saved: it is graded with your typed answer.");
    } else {
      const data = await response?.json().catch(() => ({}));
      const detail = Array.isArray(data?.detail) ? data.detail.map((d) => d.msg).join("; ") : data?.detail;
      say(`Not saved: ${detail || (navigator.onLine ? "the server did not answer" : "offline")}. Your text is still here.`, true);
    }
  }

  let timer = null;
  text.addEventListener("input", () => {
    dirty = true;
    clearTimeout(timer);
    say("Editing…");
    timer = setTimeout(save, 1200);
  });
  text.addEventListener("blur", () => { if (dirty) { clearTimeout(timer); save(); } });
  retry.addEventListener("click", queue);
  if (queueNow) queue();
  else if (box.dataset.state === "pending") wait();
}

document.querySelectorAll(".voice-transcript").forEach((box) => transcript(box));

// Live captions while speaking, where the browser has speech recognition of its own (the Web
// Speech API): a progressive enhancement, off unless ticked, shown only on this screen and
// never saved or sent by this page. The browser decides where recognition runs, and Chrome's
// sends the audio to Google: the option says so.
function liveCaptions(panel) {
  const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
  if (!Recognition) return null;
  const KEY = "ringside-live-captions";
  const option = document.createElement("label");
  option.className = "voice-captions-option";
  const tick = document.createElement("input");
  tick.type = "checkbox";
  tick.checked = localStorage.getItem(KEY) === "on";
  tick.addEventListener("change", () => localStorage.setItem(KEY, tick.checked ? "on" : "off"));
  option.append(tick, " Live captions while I speak, by this browser's own speech recognition (not saved; Chrome's sends the audio to Google)");
  const shown = document.createElement("div");
  shown.className = "voice-captions";
  shown.hidden = true;
  const heading = document.createElement("span");
  heading.className = "voice-captions-label";
  heading.textContent = "Live captions (not saved): ";
  const words = document.createElement("span");
  words.className = "voice-captions-text";
  shown.append(heading, words);
  panel.querySelector(".voice-start").after(option);
  panel.querySelector(".voice-live").after(shown);
  let recognition = null;
  let said = "";

  function start() {
    if (!tick.checked) return;
    said = "";
    words.textContent = "";
    shown.hidden = false;
    option.hidden = true;
    recognition = new Recognition();
    recognition.continuous = true;
    recognition.interimResults = true;
    recognition.lang = document.documentElement.lang || "en";
    recognition.addEventListener("result", (event) => {
      let interim = "";
      for (let i = event.resultIndex; i < event.results.length; i += 1) {
        const text = event.results[i][0].transcript;
        if (event.results[i].isFinal) said += `${text} `;
        else interim += text;
      }
      words.textContent = (said + interim).trim();
      shown.scrollTop = shown.scrollHeight;
    });
    // Recognition stops by itself after a silence: go on while the recording does.
    recognition.addEventListener("end", () => { if (recognition) recognition.start(); });
    recognition.addEventListener("error", (event) => {
      if (event.error === "not-allowed" || event.error === "service-not-allowed" || event.error === "network") {
        words.textContent = `not available here (${event.error}); the recording goes on.`;
        const failed = recognition;
        recognition = null;
        failed.abort();
      }
    });
    try {
      recognition.start();
    } catch {
      recognition = null;
    }
  }

  function stop() {
    const running = recognition;
    recognition = null;
    running?.stop();
    shown.hidden = true;
    option.hidden = false;
  }

  return { start, stop };
}
