// Install the service worker (/sw.js, scope: every page) so that Ringside can be installed
// as an app and the review page works offline.
"use strict";

if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // No service worker (a private window, say): every page still works online.
    });
    // The worker claims every open page when it activates, but a page whose request was
    // still in flight at that moment is skipped (it could not yet run script) and would stay
    // without a worker, and so without its offline copy, until its next navigation. Such a
    // page asks the active worker to claim it.
    navigator.serviceWorker.ready.then((registration) => {
      if (!navigator.serviceWorker.controller) {
        registration.active?.postMessage("claim");
        // Loaded before the worker could see it (a first visit): ask it to keep this page
        // for reading offline, as it keeps every page it sees.
        registration.active?.postMessage({ keep: location.pathname + location.search });
      }
    });
  });
}
