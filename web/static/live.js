// Keeps /live up to date: every few seconds, while the box is ticked and
// the page is in sight, it reads the page again and puts its games in
// place of the old ones. The new games come from the server's own HTML,
// escaped by its templates, parsed inert (DOMParser runs no script) and
// moved in whole; nothing here builds markup from data.
"use strict";
(function () {
  const every = 3000;
  let live = document.getElementById("live");
  const follow = document.getElementById("follow");
  const label = document.getElementById("follow-label");
  if (!live || !follow || !label) return;
  label.hidden = false;
  let timer = null;

  function schedule() {
    clearTimeout(timer);
    timer = null;
    if (follow.checked && !document.hidden) timer = setTimeout(refresh, every);
  }

  async function refresh() {
    try {
      const r = await fetch(location.pathname, { cache: "no-store", credentials: "omit" });
      if (r.ok) {
        const doc = new DOMParser().parseFromString(await r.text(), "text/html");
        const fresh = doc.getElementById("live");
        if (fresh) {
          live.replaceWith(document.adoptNode(fresh));
          live = fresh;
        }
      }
    } catch (e) {
      // The server is away for a moment (a restart): try again next time.
    }
    schedule();
  }

  follow.addEventListener("change", schedule);
  document.addEventListener("visibilitychange", schedule);
  schedule();
})();
