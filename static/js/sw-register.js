// Install the service worker (/sw.js, scope: every page) so that Ringside can be installed
// as an app and the review page works offline.
"use strict";

if ("serviceWorker" in navigator && window.isSecureContext) {
  window.addEventListener("load", () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // No service worker (a private window, say): every page still works online.
    });
  });
}
