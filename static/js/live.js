// Live pages (the mock session's two screens): hear of changes on a server-sent events
// stream and fetch what changed; ask every 2 seconds instead where EventSource is missing or
// the stream cannot be had, and while it reconnects.
//
// The stream names no content, only a version and the kind of change: `refresh()` fetches
// the JSON the page may see. A reconnect sends the last version heard (Last-Event-ID), so a
// change made meanwhile is told at once. `event: gone` means the page opens nothing any more
// (a revoked link, a deleted session): the stream is closed and `refresh()` shows why.
//
// A function declaration, not a const: classic scripts share one global scope.
function liveUpdates({ stream, version, refresh, ignore = [] }) {
  const POLL_MS = 2000;
  let poller = null;
  let source = null;
  let stopped = false;

  const poll = (on) => {
    if (on && !poller && !stopped) {
      poller = setInterval(refresh, POLL_MS);
    } else if (!on && poller) {
      clearInterval(poller);
      poller = null;
    }
  };

  const stop = () => {
    stopped = true;
    poll(false);
    source?.close();
  };

  if (!window.EventSource) {
    poll(true);
    return { stop };
  }
  source = new EventSource(`${stream}?since=${encodeURIComponent(version)}`);
  source.addEventListener("open", () => {
    if (poller) refresh();  // catch up on what the polls may have missed, then rely on news
    poll(false);
  });
  source.addEventListener("change", (event) => {
    let news = {};
    try { news = JSON.parse(event.data); } catch { /* a change all the same */ }
    if (!ignore.includes(news.kind)) refresh();
  });
  source.addEventListener("gone", () => {
    source.close();
    stopped = true;
    poll(false);
    refresh();
  });
  source.addEventListener("error", () => {
    if (stopped) return;
    // CLOSED: refused for good (404, 429, a proxy that cannot stream): poll instead.
    // CONNECTING: the browser is reconnecting by itself; poll until it is back.
    poll(true);
  });
  return { stop };
}
