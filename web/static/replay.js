// The replay player of /game/ID: it fetches the game's boards from
// /api/game/ID (rebuilt on the server; no seed) and draws them into the
// board the page already shows, with play, pause, step and seek. It only
// sets text and class names, never markup, so nothing in the data can
// become a script.
"use strict";
(function () {
  const root = document.getElementById("replay");
  if (!root) return;
  const id = root.dataset.game;
  const alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+";
  const el = (name) => document.getElementById(name);
  const cells = root.querySelectorAll(".board .cell");
  const seek = el("seek"), play = el("play"), speed = el("speed");
  const moveOut = el("move"), scoreOut = el("score");
  let game = null, at = 0, timer = null;

  function value(exp) {
    const v = 2 ** exp;
    if (v < 100000) return String(v);
    if (v < 100000 * 1024) return Math.floor(v / 1024) + "k";
    if (v < 100000 * 1024 * 1024) return Math.floor(v / 1048576) + "M";
    return Math.floor(v / 1073741824) + "G";
  }

  function draw(i) {
    at = Math.max(0, Math.min(i, game.boards.length - 1));
    const b = game.boards[at];
    for (let k = 0; k < cells.length; k++) {
      const exp = alphabet.indexOf(b[k]);
      cells[k].className = "cell " + (exp === 0 ? "t0" : exp <= 11 ? "t" + exp : "tsuper");
      cells[k].textContent = exp === 0 ? "" : value(exp);
    }
    seek.value = String(at);
    moveOut.textContent = String(at);
    scoreOut.textContent = String(game.scores[at]);
    root.dataset.move = String(at);
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "play";
  }

  function start() {
    if (at >= game.boards.length - 1) draw(0);
    play.textContent = "pause";
    timer = setInterval(() => {
      if (at >= game.boards.length - 1) { pause(); return; }
      draw(at + 1);
    }, Number(speed.value));
  }

  fetch("/api/game/" + encodeURIComponent(id))
    .then((r) => { if (!r.ok) throw new Error(r.status); return r.json(); })
    .then((g) => {
      if (g.boards.length === 0 || g.boards[0].length !== cells.length) throw new Error("board size");
      game = g;
      seek.max = String(g.boards.length - 1);
      el("start").onclick = () => { pause(); draw(0); };
      el("back").onclick = () => { pause(); draw(at - 1); };
      el("step").onclick = () => { pause(); draw(at + 1); };
      el("end").onclick = () => { pause(); draw(game.boards.length - 1); };
      play.onclick = () => { if (timer === null) start(); else pause(); };
      seek.oninput = () => { pause(); draw(Number(seek.value)); };
      speed.onchange = () => { if (timer !== null) { pause(); start(); } };
      document.addEventListener("keydown", (e) => {
        if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
        if (e.key === "ArrowLeft") el("back").click();
        else if (e.key === "ArrowRight") el("step").click();
        else if (e.key === " ") { e.preventDefault(); play.click(); }
      });
      for (const c of root.querySelectorAll("button, input, select")) c.disabled = false;
      root.classList.add("ready");
      draw(0);
      // #move-N (the review's links) shows the board after move N.
      const seekHash = () => {
        const m = /^#move-(\d+)$/.exec(location.hash);
        if (m) { pause(); draw(Number(m[1])); root.scrollIntoView(); }
      };
      window.addEventListener("hashchange", seekHash);
      seekHash();
      // ?autoplay=1 plays at once (the browser tests use it).
      if (new URLSearchParams(location.search).get("autoplay") === "1") { speed.value = "16"; start(); }
    })
    .catch((err) => { el("noscript").textContent = "The replay could not be loaded (" + err.message + "); the board above is the game's last."; });
})();
