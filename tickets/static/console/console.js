// The staff inbox: keeps the conversation list and the open chat current over ws/staff and posts the
// staff actions. Message text is only ever set with textContent, never parsed as HTML.
(function () {
  "use strict";
  const root = document.getElementById("console");
  if (!root) return;
  const conversationId = Number(root.dataset.conversationId || 0);
  const live = root.querySelector("[data-testid=console-live]");
  const strings = JSON.parse(document.getElementById("console-strings").textContent);
  const notice = root.querySelector("[data-testid=console-notice]");
  let socket = null;
  let retry = 500;

  function say(text) { if (notice) notice.textContent = text; }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/staff`);
    socket.addEventListener("open", () => {
      retry = 500;
      live.textContent = strings.live;
      live.dataset.state = "live";
      if (conversationId) socket.send(JSON.stringify({ type: "watch", conversation_id: conversationId }));
      refreshList();  // whatever changed while disconnected
    });
    socket.addEventListener("message", (e) => handle(JSON.parse(e.data)));
    socket.addEventListener("close", (e) => {
      live.textContent = e.code === 4403 ? strings.forbidden : strings.reconnecting;
      live.dataset.state = "down";
      if (e.code !== 4403) setTimeout(connect, retry = Math.min(retry * 2, 10000));
    });
  }

  // --- the list ------------------------------------------------------------------------------
  let listTimer = null;
  function refreshList() {
    clearTimeout(listTimer);
    listTimer = setTimeout(async () => {
      const query = new URLSearchParams({ view: root.dataset.view, q: root.dataset.query, open: conversationId || "" });
      const response = await fetch(`${root.dataset.listUrl}?${query}`, { credentials: "same-origin" });
      const list = document.getElementById("inbox-list");
      // a search being typed is not replaced under the staff member's fingers
      if (response.ok && !list.contains(document.activeElement)) list.innerHTML = await response.text();
    }, 300);
  }

  // --- chat ----------------------------------------------------------------------------------
  const transcript = root.querySelector("[data-testid=console-transcript]");
  const typing = root.querySelector("[data-testid=console-typing]");
  let typingTimer = null;

  function showTyping(text) {
    if (!typing) return;
    typing.textContent = text;
    typing.hidden = false;
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => { typing.hidden = true; }, 4000);
  }

  function appendMessage(message) {
    if (!transcript || transcript.querySelector(`[data-message-id="${message.id}"]`)) return;
    const item = document.createElement("li");
    item.className = `console-message ${message.sender}${message.internal ? " internal" : ""}`;
    item.setAttribute("data-testid", "console-message");
    item.dataset.messageId = message.id;
    item.dataset.sender = message.sender;
    item.dataset.internal = String(Boolean(message.internal));
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = (message.internal ? `${strings.note} · ` : "") + (message.author_name || message.sender);
    const text = document.createElement("span");
    text.className = "text";
    text.textContent = message.text;
    item.append(who, text);
    transcript.append(item);
    if (typing && message.sender !== "system") typing.hidden = true;
  }

  // --- a new waiting chat: desktop notification and a short tone, if the staff member asked --------
  const notify = root.querySelector("[data-testid=console-notify]");
  const NOTIFY_KEY = "console.notify";
  if (notify) {
    notify.checked = localStorage.getItem(NOTIFY_KEY) === "1" && window.Notification && Notification.permission === "granted";
    notify.addEventListener("change", async () => {
      if (notify.checked && window.Notification && Notification.permission !== "granted") {
        const permission = await Notification.requestPermission();
        if (permission !== "granted") { notify.checked = false; say(strings.notify_blocked); }
      }
      localStorage.setItem(NOTIFY_KEY, notify.checked ? "1" : "0");
    });
  }

  function tone() {
    try {
      const audio = new (window.AudioContext || window.webkitAudioContext)();
      const oscillator = audio.createOscillator();
      const gain = audio.createGain();
      oscillator.frequency.value = 880;
      gain.gain.value = 0.08;
      oscillator.connect(gain).connect(audio.destination);
      oscillator.start();
      oscillator.stop(audio.currentTime + 0.18);
    } catch (error) { /* no audio output: the notification still shows */ }
  }

  function announceWaiting(event) {
    if (!notify || !notify.checked || !window.Notification || Notification.permission !== "granted") return;
    const shown = new Notification(strings.new_waiting, { body: event.summary || "", tag: `chat-${event.conversation_id}` });
    shown.onclick = () => { window.focus(); location.href = `${root.dataset.consoleUrl}${event.conversation_id}/?view=waiting`; };
    tone();
  }

  function handle(event) {
    if (event.type === "escalated") announceWaiting(event);
    if (["escalated", "status.changed", "message.created"].includes(event.type)) refreshList();
    if (!conversationId) return;
    const forThis = (event.conversation_id || (event.message && event.message.conversation_id)) === conversationId;
    if (event.type === "message.created" && forThis) appendMessage(event.message);
    else if (event.type === "status.changed" && forThis) {
      const status = root.querySelector("[data-testid=console-status]");
      if (status.dataset.status !== event.status) location.reload();  // owner and buttons are server-rendered
    } else if (event.type === "typing" && forThis && event.sender === "customer") showTyping(strings.customer_typing);
    else if (event.type === "reply.delta") showTyping(strings.bot_answering);
  }

  // --- actions -------------------------------------------------------------------------------
  root.addEventListener("submit", async (e) => {
    const form = e.target.closest("form[data-action]");
    if (!form) return;
    e.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body: new FormData(form),
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": form.querySelector("[name=csrfmiddlewaretoken]").value },
      });
      const body = await response.json().catch(() => ({}));
      if (!response.ok) {
        say((body.error && body.error.message) || `${strings.failed} (${response.status})`);
        refreshList();
        return;
      }
      say("");
      const action = form.dataset.action;
      if (action === "send") form.querySelector("textarea").value = "";
      else location.reload();
    } catch (error) {
      say(strings.unreachable);
    } finally {
      button.disabled = false;
    }
  });

  const canned = root.querySelector("[data-testid=console-canned]");
  const input = root.querySelector("[data-testid=console-input]");
  if (canned && input) {
    canned.addEventListener("change", () => {
      if (canned.value) input.value = input.value ? `${input.value} ${canned.value}` : canned.value;
      canned.value = "";
      input.focus();
    });
  }
  // "/refund " typed in the reply box becomes that canned response
  const shortcuts = canned ? Object.fromEntries([...canned.options].filter((o) => o.dataset.shortcut).map((o) => [o.dataset.shortcut, o.value])) : {};
  if (input) {
    input.addEventListener("input", () => {
      const before = input.value.slice(0, input.selectionStart);
      const typed = before.match(/(^|\s)\/([\w-]+)\s$/);
      if (!typed || !(typed[2] in shortcuts)) return;
      const start = before.length - typed[0].length + typed[1].length;
      input.value = input.value.slice(0, start) + shortcuts[typed[2]] + input.value.slice(before.length);
      input.selectionStart = input.selectionEnd = start + shortcuts[typed[2]].length;
    });
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); input.form.requestSubmit(); }
    });
  }

  // J / K: next or previous chat in the list; T: take over (not while typing)
  document.addEventListener("keydown", (e) => {
    const typing = e.target.closest("textarea, select, input:not([type=checkbox]):not([type=radio])");
    if (e.ctrlKey || e.metaKey || e.altKey || typing) return;
    const key = e.key.toLowerCase();
    if (key === "j" || key === "k") {
      const items = [...document.querySelectorAll("[data-testid=inbox-item]")];
      if (!items.length) return;
      const here = items.findIndex((item) => item.getAttribute("aria-current") === "true");
      const next = here < 0 ? 0 : Math.min(Math.max(here + (key === "j" ? 1 : -1), 0), items.length - 1);
      if (next !== here) location.href = items[next].href;
    } else if (key === "t") {
      const take = root.querySelector("[data-testid=console-take-over]");
      if (take && !take.disabled) take.click();
    }
  });

  let typedAt = 0;
  if (input) {
    input.addEventListener("input", () => {
      const note = root.querySelector("[data-testid=console-note]");
      if (note && note.checked) return;
      if (socket && socket.readyState === WebSocket.OPEN && Date.now() - typedAt > 2000) {
        typedAt = Date.now();
        socket.send(JSON.stringify({ type: "typing", conversation_id: conversationId }));
      }
    });
  }

  connect();
})();
