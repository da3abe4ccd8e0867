// Install the service worker (/sw.js, scope: every page) so that Ringside can be installed
// as an app, the review page works offline and the pages read online can be read offline.
"use strict";

if ("serviceWorker" in navigator && window.isSecureContext) {
  const PENDING = "ringside-keep";  // pages seen before a worker controlled them

  function pending() {
    try {
      return JSON.parse(localStorage.getItem(PENDING) || "[]");
    } catch (error) {
      return [];
    }
  }

  function remember(list) {
    try {
      localStorage.setItem(PENDING, JSON.stringify(list.slice(-20)));
    } catch (error) {
      // Storage refused (a private window, say): the page is kept at its next visit.
    }
  }

  window.addEventListener("load", () => {
    // A page loaded without a worker (a first visit) is not kept by it: note it, and ask the
    // worker to keep it once there is one, from this page or the next.
    if (!navigator.serviceWorker.controller) {
      const here = location.pathname + location.search;
      if (!pending().includes(here)) remember([...pending(), here]);
    }
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // No service worker (a private window, say): every page still works online.
    });
    // The worker claims every open page when it activates, but a page whose request was
    // still in flight at that moment is skipped (it could not yet run script) and would stay
    // without a worker, and so without its offline copy, until its next navigation. Such a
    // page asks the active worker to claim it.
    navigator.serviceWorker.ready.then((registration) => {
      if (!navigator.serviceWorker.controller) registration.active?.postMessage("claim");
      const urls = pending();
      if (urls.length && registration.active) {
        for (const url of urls) registration.active.postMessage({ keep: url });
        remember([]);
      }
    });
  });
}
