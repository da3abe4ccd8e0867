// What the review page keeps on this device: the cards to review offline (a snapshot from
// GET /api/review/offline, updated as cards are graded) and the grades not yet sent, in
// IndexedDB so that a reload, a closed tab or an upgrade of the app loses none of them.
// Grades are sent in the order given, in batches (POST /api/review/sync); each carries its
// idempotency key, so a batch resent after a lost answer records nothing twice. A grade the
// server refuses is kept and shown until the user dismisses it.
"use strict";

window.RingsideOffline = (() => {
  const NAME = "ringside-offline";
  const GRADES = "grades";
  const SNAPSHOT = "snapshot";
  const BATCH = 50;
  const DAYS = 3;
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

  async function loadSnapshot() {
    return (await run(SNAPSHOT, "readonly", (store) => request(store.get("cards")))) || null;
  }

  function saveSnapshot(snapshot) {
    return run(SNAPSHOT, "readwrite", (store) => request(store.put({ ...snapshot, id: "cards" })));
  }

  function csrf() {
    return document.querySelector('meta[name="csrf-token"]')?.content || "";
  }

  function setCsrf(token) {
    const meta = document.querySelector('meta[name="csrf-token"]');
    if (meta && token) meta.content = token;
  }

  // Fetch the cards for offline review; only when no grade is waiting, since the server's
  // states would not yet include them.
  async function refresh() {
    if ((await waiting()).length) return null;
    const sent = Date.now();
    const response = await fetch(`/api/review/offline?days=${DAYS}`, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`offline cards answered ${response.status}`);
    const data = await response.json();
    const received = Date.now();
    setCsrf(data.csrf_token);
    // How far this device's clock is from the server's: a phone set a few minutes wrong
    // would otherwise date its grades in the future, or in the past of other reviews.
    const skew = Date.parse(data.generated_at) - (sent + received) / 2;
    const offset = Math.abs(skew) > 30000 ? skew : 0;
    const snapshot = { ...data, fetched_at: new Date(received).toISOString(), local_done: 0, clock_offset: offset };
    for (const card of snapshot.cards) card.graded = 0;
    await saveSnapshot(snapshot);
    return snapshot;
  }

  let syncing = null;

  // Send the waiting grades in order. Resolves to { sent, rejected, offline }: `offline` when
  // the network failed before all were sent (they stay waiting and are sent next time).
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

  async function sendAll(onProgress) {
    const outcome = { sent: 0, rejected: 0, offline: false };
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
          await remove(grade.seq);
          outcome.sent += 1;
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

  return { add, remove, waiting, rejected, loadSnapshot, saveSnapshot, refresh, sync };
})();
