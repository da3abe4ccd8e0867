// Ringside's service worker, served from /sw.js so that its scope is every page.
//
// Its caches are named after the app's version: an upgrade serves a different /sw.js, the
// browser installs it, and on activation it deletes every cache of an older version. What
// must outlive an upgrade (grades not yet sent, the cards kept for offline review) lives in
// IndexedDB, which the page manages (static/js/offline-grades.js), not in these caches.
"use strict";

const VERSION = "__VERSION__";
const PREFIX = "ringside-";
const SHELL = `${PREFIX}shell-${VERSION}`;  // styles, scripts, fonts, icons, two pages
const PAGES = `${PREFIX}pages-${VERSION}`;  // pages as last seen online
const ASSETS = __ASSETS__;
const REVIEW_SHELL = "/review/shell";
const OFFLINE_PAGE = "/offline";
const MAX_PAGES = 60;

// Pages that need a signed-in member: cached when the server gives them, skipped otherwise.
async function keepPage(cache, url) {
  try {
    const response = await fetch(url, { credentials: "same-origin", cache: "no-store" });
    if (response.ok && !response.redirected) await cache.put(url, response);
  } catch (error) {
    // Offline while installing: the next visit online caches it.
  }
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(SHELL);
    await cache.addAll(ASSETS);
    await Promise.all([keepPage(cache, REVIEW_SHELL), keepPage(cache, OFFLINE_PAGE)]);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(
      names
        .filter((name) => name.startsWith(PREFIX) && name !== SHELL && name !== PAGES)
        .map((name) => caches.delete(name)),
    );
    await self.clients.claim();
  })());
});

// Whether a page may be kept for reading offline: the member's own pages, as the server gave
// them (not a sign-in page it was sent to instead).
function keepable(response) {
  return response.ok && !response.redirected && response.type === "basic" &&
    new URL(response.url).pathname !== "/login";
}

async function keepForReading(url, response) {
  const cache = await caches.open(PAGES);
  await cache.put(url, response);
  await trim(cache);
}

// Messages from the pages (sw-register.js): a page that loaded while this worker was
// activating asks to be claimed; a page that loaded before any worker controlled it (the
// first visit) asks to be kept, so that the topic just read is there offline too.
self.addEventListener("message", (event) => {
  if (event.data === "claim") {
    event.waitUntil(self.clients.claim());
  } else if (event.data?.keep) {
    const url = new URL(event.data.keep, self.location.origin);
    if (url.origin !== self.location.origin || url.pathname === "/review") return;
    event.waitUntil((async () => {
      if (await caches.match(url.href, { cacheName: PAGES })) return;
      try {
        const response = await fetch(url.href, { credentials: "same-origin" });
        if (keepable(response)) await keepForReading(url.href, response);
      } catch (error) {
        // Offline already: the next visit online keeps it.
      }
    })());
  }
});

async function staticAsset(request) {
  const cached = await caches.match(request, { ignoreSearch: true, cacheName: SHELL });
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) {
    const cache = await caches.open(SHELL);
    await cache.put(new URL(request.url).pathname, response.clone());
  }
  return response;
}

// The pages kept longest ago go first beyond MAX_PAGES.
async function trim(cache) {
  const keys = await cache.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_PAGES)).map((key) => cache.delete(key)));
}

async function page(event) {
  const url = new URL(event.request.url);
  const review = url.pathname === "/review";
  try {
    const response = await fetch(event.request);
    if (new URL(response.url || url).pathname === "/login") {
      // Signed out, or someone else is signing in: keep no one's pages.
      event.waitUntil(caches.delete(PAGES).then(() => caches.open(SHELL)).then((cache) => cache.delete(REVIEW_SHELL)));
      return response;
    }
    if (keepable(response)) {
      if (review) {
        // Online on the review page: keep its offline shell current (a new sign-in, say).
        event.waitUntil(caches.open(SHELL).then((cache) => keepPage(cache, REVIEW_SHELL)));
      } else {
        // Every page read online (a topic with its figures, which are inline, and its
        // styles, which the shell keeps) is kept for reading offline.
        event.waitUntil(keepForReading(event.request.url, response.clone()));
      }
    }
    return response;
  } catch (error) {
    // Offline, or the server is unreachable.
    const shell = await caches.open(SHELL);
    if (review) {
      const cached = await shell.match(REVIEW_SHELL);
      if (cached) return cached;
    }
    const seen = await caches.match(event.request.url, { cacheName: PAGES });
    if (seen) return seen;
    const fallback = await shell.match(OFFLINE_PAGE);
    if (fallback) return fallback;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(staticAsset(request));
  } else if (request.mode === "navigate") {
    event.respondWith(page(event));
  }
  // Anything else (the JSON API, the review page's fragments) goes to the network as usual:
  // the review page keeps what it needs offline in IndexedDB.
});
