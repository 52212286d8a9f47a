// Down and Back's page (app_index.html), loaded before textual-serve's script.
"use strict";

(() => {
  // The sign-in form: the browser remembers the name (only the name) for next time.
  document.addEventListener("DOMContentLoaded", () => {
    const form = document.querySelector("form.sign-in");
    const name = form && form.elements.name;
    if (name) {
      if (!name.value) name.value = localStorage.getItem("dab-name") || "";
      form.addEventListener("submit", () => localStorage.setItem("dab-name", name.value));
    }
  });

  // The terminal: textual-serve's script opens the tab's WebSocket from the page's relative address. Its
  // socket is made absolute from this page's own location; keys typed before it is open wait for it, not
  // lost; and when it closes, the reason the server gave (another tab, a shutdown) is what the page says.
  const NativeWebSocket = window.WebSocket;
  class TabSocket extends NativeWebSocket {
    constructor(url, protocols) {
      super(new URL(url, location.href.replace(/^http/, "ws")).href, protocols);
      this.waiting = [];
      this.addEventListener("open", () => {
        for (const data of this.waiting.splice(0)) super.send(data);
      });
      this.addEventListener("close", (event) => {
        const reason = document.getElementById("reason");
        if (reason && event.reason) reason.textContent = event.reason;
      });
    }

    send(data) {
      if (this.readyState === NativeWebSocket.CONNECTING) this.waiting.push(data);
      else super.send(data);
    }
  }
  window.WebSocket = TabSocket;

  // After Play the keyboard is the terminal's at once (no click needed first).
  window.addEventListener("load", () => {
    const focus = () => {
      const input = document.querySelector("#terminal .xterm-helper-textarea");
      if (input) input.focus();
      else if (document.getElementById("terminal")) requestAnimationFrame(focus);
    };
    focus();
  });
})();
