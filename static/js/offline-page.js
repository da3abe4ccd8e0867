// The page shown offline for a page this device never kept: it lists the topics that are
// kept (the service worker keeps every page opened online, static/js/sw.js), each by its
// title, so that reading goes on without the network.
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const section = document.getElementById("saved-topics");
  if (!section || !window.caches) return;
  const names = (await caches.keys()).filter((name) => name.startsWith("ringside-pages-"));
  const found = new Map();
  for (const name of names) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/topics/") || found.has(url.pathname)) continue;
      const response = await cache.match(request);
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const title = page.querySelector("h1")?.textContent.trim() || url.pathname;
      found.set(url.pathname, title);
    }
  }
  if (!found.size) return;
  const list = section.querySelector("ul");
  for (const [path, title] of [...found].sort((a, b) => a[1].localeCompare(b[1]))) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = path;
    link.textContent = title;
    item.append(link);
    list.append(item);
  }
  section.hidden = false;
});
