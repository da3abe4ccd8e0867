// What the review page keeps on this device: the cards to review (a snapshot of the server's
// queue from GET /api/review/offline, one per topic selection, as the server gave it) and
// every grade given here, in IndexedDB so that a reload, a closed tab or an upgrade of the
// app loses none of them. The page shows a snapshot with the grades it does not yet include
// applied on top (review.js).
//
// Grades are sent in the order given, in batches (POST /api/review/sync); each carries its
// idempotency key, so a batch resent after a lost answer records nothing twice. A grade the
// server takes is kept as "sent" until a later snapshot includes it; one it refuses is kept
// and shown until the user dismisses it.
"use strict";

window.RingsideOffline = (() => {
  const NAME = "ringside-offline";
  const GRADES = "grades";
  const SNAPSHOT = "snapshot";
  const BATCH = 50;
  const DAYS = 3;
  const KEEP_SENT_MS = (DAYS + 1) * 864e5;  // a sent grade is in every snapshot after this
  let opening = null;

  function request(req) {
    return new Promise((resolve, reject) => {
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }

  function open() {
    if (!opening) {
      opening = new Promise((resolve, reject) => {
        const req = indexedDB.open(NAME, 1);
        req.onupgradeneeded = () => {
          req.result.createObjectStore(GRADES, { keyPath: "seq", autoIncrement: true });
          req.result.createObjectStore(SNAPSHOT, { keyPath: "id" });
        };
        req.onsuccess = () => resolve(req.result);
        req.onerror = () => reject(req.error);
      });
    }
    return opening;
  }

  async function run(storeName, mode, work) {
    const db = await open();
    const tx = db.transaction(storeName, mode);
    const result = await work(tx.objectStore(storeName));
    await new Promise((resolve, reject) => {
      tx.oncomplete = resolve;
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
    return result;
  }

  const all = () => run(GRADES, "readonly", (store) => request(store.getAll()));

  async function waiting() {
    return (await all()).filter((g) => g.status === "waiting");
  }

  async function rejected() {
    return (await all()).filter((g) => g.status === "rejected");
  }

  // Grades given on this device and not refused, in the order given: those waiting and those
  // sent (with `sent_at`, the time the server took them).
  async function given() {
    return (await all()).filter((g) => g.status !== "rejected").sort((a, b) => a.seq - b.seq);
  }

  async function markSent(seq, grade) {
    await run(GRADES, "readwrite", async (store) => {
      const stored = await request(store.get(seq));
      if (stored) await request(store.put({ ...stored, status: "sent", sent_at: Date.now(), server: grade }));
    });
  }

  async function forgetSent(before) {
    await run(GRADES, "readwrite", async (store) => {
      for (const grade of await request(store.getAll())) {
        if (grade.status === "sent" && grade.sent_at < before) await request(store.delete(grade.seq));
      }
    });
  }

  // A grade given now: { idempotency_key, card_id, rating, duration_ms, reviewed_at, owner,
  // before }: `owner` names the account whose cards were on screen.
  function add(grade) {
    return run(GRADES, "readwrite", (store) => request(store.add({ ...grade, status: "waiting" })));
  }

  function remove(seq) {
    return run(GRADES, "readwrite", (store) => request(store.delete(seq)));
  }

  async function reject(seq, status, detail) {
    await run(GRADES, "readwrite", async (store) => {
      const grade = await request(store.get(seq));
      if (grade) await request(store.put({ ...grade, status: "rejected", code: status, detail }));
    });
  }

  // One snapshot per topic selection: `topics` is the review page's query ("topic=a&topic=b"),
  // empty for every topic.
  const snapshotId = (topics = "") => (topics ? `cards?${topics}` : "cards");

  async function loadSnapshot(topics = "") {
    return (await run(SNAPSHOT, "readonly", (store) => request(store.get(snapshotId(topics))))) || null;
  }

  function saveSnapshot(snapshot, topics = "") {
    return run(SNAPSHOT, "readwrite", (store) => request(store.put({ ...snapshot, id: snapshotId(topics) })));
  }

  function csrf() {
    return document.querySelector('meta[name="csrf-token"]')?.content || "";
  }

  function setCsrf(token) {
    const meta = document.querySelector('meta[name="csrf-token"]');
    if (meta && token) meta.content = token;
  }

  // Fetch the server's queue and the cards due in the next days. The snapshot includes every
  // grade the server took before `requested_at`; the page applies the others on top.
  async function refresh(topics = "") {
    const sent = Date.now();
    const query = [`days=${DAYS}`, topics].filter(Boolean).join("&");
    const response = await fetch(`/api/review/offline?${query}`, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`offline cards answered ${response.status}`);
    const data = await response.json();
    const received = Date.now();
    setCsrf(data.csrf_token);
    // How far this device's clock is from the server's: a phone set a few minutes wrong
    // would otherwise date its grades in the future, or in the past of other reviews.
    const skew = Date.parse(data.generated_at) - (sent + received) / 2;
    const offset = Math.abs(skew) > 30000 ? skew : 0;
    const snapshot = { ...data, fetched_at: new Date(received).toISOString(), requested_at: sent, clock_offset: offset };
    await saveSnapshot(snapshot, topics);
    await forgetSent(sent - KEEP_SENT_MS);
    return snapshot;
  }

  let syncing = null;

  // Send the waiting grades in order. Resolves to { sent, rejected, offline, taken }:
  // `offline` when the network failed before all were sent (they stay waiting and are sent
  // next time); `taken` lists each grade sent with the server's answer (its new state).
  function sync(onProgress) {
    if (!syncing) {
      const work = () => sendAll(onProgress);
      const locked = navigator.locks
        ? navigator.locks.request("ringside-sync", work)
        : work();
      syncing = locked.finally(() => { syncing = null; });
    }
    return syncing;
  }

  // Settles when the sync under way, if any, is over.
  function idle() {
    return (syncing || Promise.resolve()).catch(() => null);
  }

  async function sendAll(onProgress) {
    const outcome = { sent: 0, rejected: 0, offline: false, taken: [] };
    let retriedCsrf = false;
    for (;;) {
      const batch = (await waiting()).sort((a, b) => a.seq - b.seq).slice(0, BATCH);
      if (!batch.length) return outcome;
      onProgress?.(outcome);
      let response;
      try {
        response = await fetch("/api/review/sync", {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() },
          body: JSON.stringify({
            grades: batch.map((g) => ({
              card_id: g.card_id,
              rating: g.rating,
              idempotency_key: g.idempotency_key,
              duration_ms: g.duration_ms,
              reviewed_at: g.reviewed_at,
              ...(g.owner ? { owner: g.owner } : {}),
            })),
          }),
        });
      } catch (error) {
        outcome.offline = true;
        return outcome;
      }
      if (response.status === 403 && !retriedCsrf) {
        // The page's token may be older than the session: ask for the current one once.
        retriedCsrf = true;
        try {
          const fresh = await fetch("/api/review/offline?days=1&limit=1", { headers: { Accept: "application/json" } });
          if (fresh.ok) setCsrf((await fresh.json()).csrf_token);
        } catch (error) {
          outcome.offline = true;
          return outcome;
        }
        continue;
      }
      if (!response.ok) {
        // Signed out, or the server is failing: keep everything and try again later.
        outcome.offline = true;
        outcome.status = response.status;
        return outcome;
      }
      const { results } = await response.json();
      for (const [index, grade] of batch.entries()) {
        const result = results[index];
        if (result.status === 200) {
          await markSent(grade.seq, result.grade);
          outcome.sent += 1;
          outcome.taken.push({ ...grade, server: result.grade });
        } else {
          await reject(grade.seq, result.status, describe(result.detail));
          outcome.rejected += 1;
        }
      }
    }
  }

  function describe(detail) {
    if (typeof detail === "string") return detail;
    if (Array.isArray(detail)) {
      return detail.map((d) => {
        const field = (d.loc || []).slice(-1)[0] || "grade";
        return /^[a-z]/.test(d.msg) ? `${field} ${d.msg}` : `${field}: ${d.msg}`;
      }).join("; ");
    }
    return "refused by the server";
  }

  return { add, remove, waiting, rejected, given, loadSnapshot, saveSnapshot, refresh, sync, idle };
})();
