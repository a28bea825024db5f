/*!
 * Customer-service chat widget: one <script> tag, no framework, no build step.
 *
 *   <script src="https://support.example.com/static/cs_widget/widget.js" data-site-key="demo"
 *           data-locale="zh|en" data-identity-token="…" defer></script>
 *
 * data-identity-token is the store's signed-in shopper: an HS256 JWT its server signs (README).
 *
 * The server is the origin of this script's own src; nothing else is ever requested. Protocol:
 * POST {origin}/widget/session, then the WebSocket it names (ARCHITECTURE §8).
 *
 * Safety: message text is rendered with a tiny Markdown subset built from DOM nodes and
 * textContent only. Message content never goes through innerHTML.
 */
(() => {
  "use strict";

  if (window.__csWidget) return; // the tag included twice
  window.__csWidget = true;

  // --- configuration from the <script> tag ------------------------------------------------------

  const script =
    document.currentScript ||
    Array.from(document.getElementsByTagName("script")).find((s) => /\/cs_widget\/widget\.js(\?|#|$)/.test(s.src));
  if (!script || !script.src) return;
  const ORIGIN = new URL(script.src, window.location.href).origin;
  const data = script.dataset;
  const SITE_KEY = data.siteKey || "";
  const LOCALE = /^zh/i.test(data.locale || navigator.language || "en") ? "zh" : "en";
  // Dropped once the server refuses it (expired on a page left open): the chat goes on as the
  // customer its conversation token already names.
  let identityToken = data.identityToken || "";
  const STORE_KEY = `cs-widget:${SITE_KEY || "default"}`;
  const TYPING_EVERY_MS = 2000;
  const TYPING_SHOW_MS = 4000;
  const REPLY_WAIT_MS = 60000;

  // --- strings ----------------------------------------------------------------------------------

  const STRINGS = {
    en: {
      title: "Customer support",
      subtitle: "Ask us anything about products, orders and after-sales",
      open: "Open chat",
      close: "Close chat",
      placeholder: "Type a message…",
      inputLabel: "Message",
      send: "Send",
      log: "Conversation",
      welcome: "Hi! How can we help you today?",
      assistant: "Assistant",
      you: "You",
      agent: "Agent",
      aPerson: "A person",
      typing: "Assistant is typing…",
      agentTyping: (name) => `${name} is typing…`,
      waiting: "Waiting for a person to join…",
      waitingOffline: "No one from our team is online right now. We'll get back to you.",
      handedOver: "Handed to our team. Someone will reply as soon as they can.",
      joined: (name) => `${name} joined the chat`,
      back: "You're back with the assistant",
      closed: "This conversation is closed. Send a message to start again.",
      sources: "Sources",
      quickReplies: "Suggested replies",
      failed: "Not sent",
      sending: "Sending…",
      reconnecting: "Reconnecting…",
      offline: "Can't reach support right now. Retrying…",
      newMessages: (n) => `${n} new message${n === 1 ? "" : "s"}`,
      sysTakenOver: (name) => `${name} joined the conversation.`,
      sysHandedBack: "The assistant is back in the conversation.",
      endChat: "End chat",
      rateTitle: "How did we do?",
      rateStar: (n) => `${n} out of 5`,
      rateComment: "Anything to add? (optional)",
      rateSend: "Send rating",
      rateThanks: "Thanks for your feedback!",
    },
    zh: {
      title: "在线客服",
      subtitle: "商品、订单、售后问题都可以问我",
      open: "打开在线客服",
      close: "关闭在线客服",
      placeholder: "输入消息…",
      inputLabel: "消息",
      send: "发送",
      log: "对话记录",
      welcome: "您好！请问有什么可以帮您？",
      assistant: "智能助手",
      you: "我",
      agent: "客服",
      aPerson: "人工客服",
      typing: "智能助手正在输入…",
      agentTyping: (name) => `${name} 正在输入…`,
      waiting: "正在为您转接人工客服，请稍候…",
      waitingOffline: "当前没有人工客服在线，我们会尽快与您联系。",
      handedOver: "已转交人工客服，客服有空时会尽快回复您。",
      joined: (name) => `${name} 已加入对话`,
      back: "已切换回智能助手",
      closed: "本次对话已结束，发送消息即可重新开始。",
      sources: "参考来源",
      quickReplies: "快捷回复",
      failed: "发送失败",
      sending: "发送中…",
      reconnecting: "正在重新连接…",
      offline: "暂时无法连接客服，正在重试…",
      newMessages: (n) => `${n} 条新消息`,
      sysTakenOver: (name) => `${name} 已加入对话。`,
      sysHandedBack: "智能助手已回到对话中。",
      endChat: "结束对话",
      rateTitle: "请为本次服务评分",
      rateStar: (n) => `${n} 分（满分 5 分）`,
      rateComment: "还有什么想说的？（选填）",
      rateSend: "提交评价",
      rateThanks: "感谢您的评价！",
    },
  };
  const T = STRINGS[LOCALE];

  // --- styles (scoped under #cs-widget) ----------------------------------------------------------

  const CSS = `
#cs-widget, #cs-widget * { box-sizing: border-box; }
#cs-widget { --cs-accent: #2457d6; --cs-accent-dark: #1b44a8; --cs-bg: #fff; --cs-muted: #6b7385;
  --cs-line: #e3e6ec; --cs-bubble: #f1f3f7; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "PingFang SC",
  "Microsoft YaHei", "WenQuanYi Zen Hei", "Noto Sans CJK SC", sans-serif; color: #1d2330; }
#cs-widget button { font: inherit; cursor: pointer; }
#cs-widget [hidden] { display: none !important; }
#cs-widget .cs-launcher { position: fixed; right: 20px; bottom: 20px; z-index: 2147483000; width: 58px; height: 58px;
  border-radius: 50%; border: 0; background: var(--cs-accent); color: #fff; display: flex; align-items: center;
  justify-content: center; box-shadow: 0 6px 20px rgba(20, 40, 90, .3); transition: transform .15s; }
#cs-widget .cs-launcher:hover { transform: scale(1.06); }
#cs-widget .cs-launcher:focus-visible, #cs-widget button:focus-visible, #cs-widget a:focus-visible {
  outline: 3px solid #ffbf47; outline-offset: 2px; }
#cs-widget .cs-launcher svg { width: 28px; height: 28px; }
#cs-widget .cs-badge { position: absolute; top: -2px; right: -2px; min-width: 20px; height: 20px; padding: 0 5px;
  border-radius: 10px; background: #d93025; color: #fff; font-size: 12px; line-height: 20px; text-align: center; }
#cs-widget .cs-panel { position: fixed; right: 20px; bottom: 90px; z-index: 2147483001; width: 380px;
  height: min(620px, calc(100vh - 110px)); display: flex; flex-direction: column; background: var(--cs-bg);
  border-radius: 14px; overflow: hidden; box-shadow: 0 12px 40px rgba(20, 30, 60, .28); }
#cs-widget .cs-header { flex: none; display: flex; align-items: center; gap: 10px; padding: 12px 14px;
  background: var(--cs-accent); color: #fff; }
#cs-widget .cs-header-text { flex: 1; min-width: 0; }
#cs-widget .cs-title { margin: 0; font-size: 16px; font-weight: 600; }
#cs-widget .cs-subtitle { margin: 0; font-size: 12px; opacity: .85; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }
#cs-widget .cs-close { flex: none; width: 36px; height: 36px; border: 0; border-radius: 8px; background: transparent;
  color: #fff; font-size: 22px; line-height: 1; }
#cs-widget .cs-close:hover, #cs-widget .cs-end:hover { background: rgba(255, 255, 255, .15); }
#cs-widget .cs-end { flex: none; height: 30px; padding: 0 10px; border: 1px solid rgba(255, 255, 255, .6);
  border-radius: 8px; background: transparent; color: #fff; font-size: 12px; }
#cs-widget .cs-rating { align-self: stretch; padding: 10px 12px; border: 1px solid var(--cs-line); border-radius: 12px;
  background: #fff; display: flex; flex-direction: column; gap: 8px; }
#cs-widget .cs-rating-title { margin: 0; font-weight: 600; }
#cs-widget .cs-stars { display: flex; gap: 4px; }
#cs-widget .cs-star { width: 36px; height: 36px; border: 1px solid var(--cs-line); border-radius: 8px; background: #fff;
  font-size: 20px; line-height: 1; color: #b9bfcc; }
#cs-widget .cs-star[aria-pressed="true"] { color: #f29900; border-color: #f29900; }
#cs-widget .cs-rating textarea { resize: none; min-height: 40px; padding: 6px 10px; border: 1px solid var(--cs-line);
  border-radius: 8px; font: inherit; }
#cs-widget .cs-rating-send { align-self: flex-end; height: 32px; padding: 0 14px; border: 0; border-radius: 8px;
  background: var(--cs-accent); color: #fff; }
#cs-widget .cs-rating-send[disabled] { opacity: .5; cursor: default; }
#cs-widget .cs-banner { flex: none; padding: 8px 14px; font-size: 13px; background: #fff6d9; color: #5c4500;
  border-bottom: 1px solid #f0e2b0; }
#cs-widget .cs-conn { flex: none; padding: 4px 14px; font-size: 12px; background: #fdecea; color: #8a1c13; }
#cs-widget .cs-log { flex: 1; min-height: 0; overflow-y: auto; padding: 14px; display: flex; flex-direction: column;
  gap: 10px; background: #fafbfc; overscroll-behavior: contain; }
#cs-widget .cs-welcome { align-self: flex-start; max-width: 85%; padding: 8px 12px; border-radius: 12px;
  background: var(--cs-bubble); color: #1d2330; }
#cs-widget .cs-msg { max-width: 85%; display: flex; flex-direction: column; gap: 4px; }
#cs-widget .cs-msg[data-sender="customer"] { align-self: flex-end; align-items: flex-end; }
#cs-widget .cs-msg[data-sender="bot"], #cs-widget .cs-msg[data-sender="agent"] { align-self: flex-start; }
#cs-widget .cs-msg[data-sender="system"] { align-self: center; max-width: 95%; text-align: center; color: var(--cs-muted);
  font-size: 12px; }
#cs-widget .cs-author { font-size: 12px; color: var(--cs-muted); padding: 0 4px; }
#cs-widget .cs-bubble { padding: 8px 12px; border-radius: 14px; background: var(--cs-bubble); overflow-wrap: anywhere;
  word-break: break-word; }
#cs-widget .cs-msg[data-sender="customer"] .cs-bubble { background: var(--cs-accent); color: #fff;
  border-bottom-right-radius: 4px; white-space: pre-wrap; }
#cs-widget .cs-msg[data-sender="bot"] .cs-bubble { border-bottom-left-radius: 4px; }
#cs-widget .cs-msg[data-sender="agent"] .cs-bubble { background: #e7f4ea; border-bottom-left-radius: 4px; }
#cs-widget .cs-msg[data-sender="system"] .cs-bubble { background: transparent; padding: 2px 8px; }
#cs-widget .cs-msg.cs-pending .cs-bubble { opacity: .65; }
#cs-widget .cs-msg.cs-failed .cs-bubble { background: #b3261e; }
#cs-widget .cs-state { font-size: 11px; color: var(--cs-muted); padding: 0 4px; }
#cs-widget .cs-msg.cs-failed .cs-state { color: #b3261e; }
#cs-widget .cs-bubble p { margin: 0; }
#cs-widget .cs-bubble p + p, #cs-widget .cs-bubble p + ul, #cs-widget .cs-bubble ul + p { margin-top: 6px; }
#cs-widget .cs-bubble ul { margin: 4px 0 0; padding-left: 18px; }
#cs-widget .cs-bubble code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px;
  background: rgba(0, 0, 0, .07); padding: 1px 4px; border-radius: 4px; }
#cs-widget .cs-bubble a { color: var(--cs-accent-dark); text-decoration: underline; }
#cs-widget .cs-msg[data-sender="customer"] .cs-bubble a { color: #fff; }
#cs-widget .cs-notice { align-self: center; max-width: 95%; font-size: 12px; color: #8a1c13; background: #fdecea;
  border-radius: 8px; padding: 4px 10px; text-align: center; }
#cs-widget .cs-sources { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; font-size: 12px;
  padding: 0 2px; }
#cs-widget .cs-sources-label { color: var(--cs-muted); margin-right: 2px; }
#cs-widget .cs-citation { display: inline-block; max-width: 100%; padding: 1px 8px; border-radius: 10px;
  border: 1px solid var(--cs-line); background: #fff; color: #39415a; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; text-decoration: none; }
#cs-widget a.cs-citation { color: var(--cs-accent-dark); }
#cs-widget a.cs-citation:hover { border-color: var(--cs-accent); }
#cs-widget .cs-quick { display: flex; flex-wrap: wrap; gap: 6px; padding-top: 2px; }
#cs-widget .cs-quick-reply { border: 1px solid var(--cs-accent); background: #fff; color: var(--cs-accent-dark);
  border-radius: 16px; padding: 4px 12px; font-size: 13px; }
#cs-widget .cs-quick-reply:hover { background: var(--cs-accent); color: #fff; }
#cs-widget .cs-typing { align-self: flex-start; display: flex; align-items: center; gap: 8px; color: var(--cs-muted);
  font-size: 12px; }
#cs-widget .cs-dots { display: inline-flex; gap: 3px; padding: 10px 12px; border-radius: 14px;
  background: var(--cs-bubble); }
#cs-widget .cs-dots i { width: 6px; height: 6px; border-radius: 50%; background: #8c93a3;
  animation: cs-blink 1.2s infinite ease-in-out; }
#cs-widget .cs-dots i:nth-child(2) { animation-delay: .2s; }
#cs-widget .cs-dots i:nth-child(3) { animation-delay: .4s; }
@keyframes cs-blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: 1; } }
#cs-widget .cs-form { flex: none; display: flex; align-items: flex-end; gap: 8px; padding: 10px;
  border-top: 1px solid var(--cs-line); background: #fff; }
#cs-widget .cs-input { flex: 1; min-width: 0; resize: none; max-height: 120px; min-height: 40px; padding: 9px 12px;
  border: 1px solid var(--cs-line); border-radius: 10px; font: inherit; color: inherit; background: #fff; }
#cs-widget .cs-input:focus { outline: 2px solid var(--cs-accent); outline-offset: 0; border-color: transparent; }
#cs-widget .cs-send { flex: none; height: 40px; padding: 0 16px; border: 0; border-radius: 10px;
  background: var(--cs-accent); color: #fff; font-weight: 600; }
#cs-widget .cs-send:hover { background: var(--cs-accent-dark); }
#cs-widget .cs-sr { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
@media (max-width: 480px) {
  #cs-widget .cs-panel { inset: 0; width: 100%; height: 100%; max-height: none; border-radius: 0; }
  #cs-widget .cs-launcher { right: 14px; bottom: 14px; }
  #cs-widget.cs-open .cs-launcher { display: none; }
  #cs-widget .cs-msg { max-width: 92%; }
  #cs-widget .cs-input { font-size: 16px; } /* no zoom on focus in iOS Safari */
}
@media (prefers-reduced-motion: reduce) {
  #cs-widget .cs-dots i { animation: none; opacity: .6; }
  #cs-widget .cs-launcher { transition: none; }
}
`;

  // --- small DOM helpers ------------------------------------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "className") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  function uuid() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** A link target we are willing to open: absolute http(s) only (relative ones resolve against our origin). */
  function safeUrl(raw) {
    try {
      const url = new URL(String(raw), ORIGIN);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch (_) {
      return null;
    }
  }

  // --- the Markdown subset, built from DOM nodes ------------------------------------------------

  const INLINE = /(`[^`\n]+`)|(\*\*(?=\S)[^\n]*?\S\*\*)|(\*(?=[^\s*])[^*\n]*?[^\s*]\*|\*[^\s*]\*)|(https?:\/\/[^\s<>"'`]+)/g;
  const TRAILING = /[.,;:!?)\]}'"。，；：！？）】」』、]+$/;

  function renderInline(text, parent) {
    let last = 0;
    INLINE.lastIndex = 0;
    const matches = [];
    let match;
    while ((match = INLINE.exec(text)) !== null) matches.push([match.index, match[0], match.slice(1)]);
    for (const [index, whole, groups] of matches) {
      if (index < last) continue;
      if (index > last) parent.append(document.createTextNode(text.slice(last, index)));
      let consumed = whole.length;
      if (groups[0]) {
        parent.append(el("code", { text: whole.slice(1, -1) }));
      } else if (groups[1]) {
        const strong = el("strong");
        renderInline(whole.slice(2, -2), strong);
        parent.append(strong);
      } else if (groups[2]) {
        const em = el("em");
        renderInline(whole.slice(1, -1), em);
        parent.append(em);
      } else {
        const trail = whole.match(TRAILING);
        const url = trail ? whole.slice(0, -trail[0].length) : whole;
        consumed = url.length;
        const href = safeUrl(url);
        if (href) parent.append(el("a", { href, target: "_blank", rel: "noopener noreferrer nofollow", text: url }));
        else parent.append(document.createTextNode(url));
      }
      last = index + consumed;
    }
    if (last < text.length) parent.append(document.createTextNode(text.slice(last)));
  }

  const BULLET = /^\s*(?:[-*•·]|\d+[.)、])\s+/;

  /** Paragraphs (blank lines), line breaks, bullet lists ("- ", "* ", "• ", "1. "), inline marks. */
  function renderMarkdown(text, container) {
    container.replaceChildren();
    const blocks = String(text || "")
      .replace(/\r\n?/g, "\n")
      .split(/\n[ \t]*\n+/);
    for (const block of blocks) {
      if (!block.trim()) continue;
      let paragraph = null;
      let list = null;
      for (const line of block.split("\n")) {
        if (BULLET.test(line) && /^\s*[-*•·]/.test(line)) {
          paragraph = null;
          if (!list) container.append((list = el("ul")));
          const item = el("li");
          renderInline(line.replace(BULLET, ""), item);
          list.append(item);
          continue;
        }
        list = null;
        if (!paragraph) container.append((paragraph = el("p")));
        else paragraph.append(el("br"));
        renderInline(line, paragraph);
      }
    }
  }

  // --- persisted session ------------------------------------------------------------------------

  function loadSession() {
    try {
      const saved = JSON.parse(window.localStorage.getItem(STORE_KEY) || "null");
      if (saved && Number.isInteger(saved.conversation_id) && typeof saved.token === "string") return saved;
    } catch (_) {
      /* storage disabled or corrupt */
    }
    return null;
  }

  function saveSession(session) {
    try {
      if (session) window.localStorage.setItem(STORE_KEY, JSON.stringify(session));
      else window.localStorage.removeItem(STORE_KEY);
    } catch (_) {
      /* storage disabled: the chat lasts as long as the page */
    }
  }

  // --- state ------------------------------------------------------------------------------------

  const state = {
    session: loadSession(), // {conversation_id, token}
    wsUrl: null,
    ws: null,
    connecting: false,
    connected: false,
    everConnected: false,
    attempts: 0,
    reconnectTimer: null,
    connectionTimer: null,
    status: "bot",
    agentName: null,
    open: false,
    unread: 0,
    pending: [], // [{client_id, text}] sent or to be sent, not yet echoed by the server
    byId: new Map(), // message id → bubble
    byClient: new Map(), // client_id → bubble
    byTurn: new Map(), // turn_id → bubble
    typingTimer: null,
    agentTypingTimer: null,
    lastTypingSent: 0,
    historyLoaded: false,
  };

  // --- DOM --------------------------------------------------------------------------------------

  function chatIcon() {
    const NS = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(NS, "svg");
    const attrs = { viewBox: "0 0 24 24", fill: "none", stroke: "currentColor", "stroke-width": "2",
      "stroke-linecap": "round", "stroke-linejoin": "round", "aria-hidden": "true", focusable: "false" };
    for (const [key, value] of Object.entries(attrs)) svg.setAttribute(key, value);
    const path = document.createElementNS(NS, "path");
    path.setAttribute("d", "M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z");
    svg.append(path);
    return svg;
  }

  const ui = {};

  function build() {
    document.head.append(el("style", { id: "cs-widget-style", text: CSS }));
    const titleId = "cs-widget-title";
    ui.launcher = el("button", {
      type: "button",
      className: "cs-launcher",
      "data-testid": "cs-launcher",
      "aria-label": T.open,
      "aria-expanded": "false",
      "aria-controls": "cs-widget-panel",
    });
    ui.launcher.append(chatIcon());
    ui.badge = el("span", { className: "cs-badge", hidden: true, "aria-hidden": "true" });
    ui.launcher.append(ui.badge);

    ui.close = el("button", { type: "button", className: "cs-close", "aria-label": T.close, text: "×" });
    ui.end = el("button", { type: "button", className: "cs-end", "data-testid": "cs-end", text: T.endChat, hidden: true });
    ui.connection = el("div", { className: "cs-conn", role: "status", hidden: true });
    ui.banner = el("div", { className: "cs-banner", "data-testid": "cs-banner", role: "status", hidden: true });
    ui.log = el("div", {
      className: "cs-log",
      role: "log",
      "aria-live": "polite",
      "aria-relevant": "additions text",
      "aria-label": T.log,
      tabindex: "0",
    });
    ui.welcome = el("div", { className: "cs-welcome", text: T.welcome });
    ui.log.append(ui.welcome);
    ui.typingLabel = el("span", { className: "cs-sr", text: T.typing });
    ui.typing = el(
      "div",
      { className: "cs-typing", "data-testid": "cs-typing", hidden: true },
      el("span", { className: "cs-dots", "aria-hidden": "true" }, el("i"), el("i"), el("i")),
      ui.typingLabel,
    );
    ui.input = el("textarea", {
      className: "cs-input",
      "data-testid": "cs-input",
      rows: "1",
      placeholder: T.placeholder,
      "aria-label": T.inputLabel,
      enterkeyhint: "send",
    });
    ui.send = el("button", { type: "submit", className: "cs-send", "data-testid": "cs-send", text: T.send });
    ui.form = el("form", { className: "cs-form", novalidate: true }, ui.input, ui.send);
    ui.panel = el(
      "div",
      {
        id: "cs-widget-panel",
        className: "cs-panel",
        "data-testid": "cs-panel",
        role: "dialog",
        "aria-modal": "false",
        "aria-labelledby": titleId,
        hidden: true,
        lang: LOCALE === "zh" ? "zh-CN" : "en",
      },
      el(
        "div",
        { className: "cs-header" },
        el(
          "div",
          { className: "cs-header-text" },
          el("h2", { id: titleId, className: "cs-title", text: T.title }),
          el("p", { className: "cs-subtitle", text: T.subtitle }),
        ),
        ui.end,
        ui.close,
      ),
      ui.banner,
      ui.connection,
      ui.log,
      ui.form,
    );
    ui.root = el("div", { id: "cs-widget" }, ui.panel, ui.launcher);
    document.body.append(ui.root);

    ui.launcher.addEventListener("click", () => (state.open ? closePanel() : openPanel()));
    ui.close.addEventListener("click", () => closePanel());
    ui.end.addEventListener("click", () => {
      if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify({ type: "conversation.end" }));
    });
    ui.panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        closePanel();
      }
    });
    ui.form.addEventListener("submit", (event) => {
      event.preventDefault();
      submitInput();
    });
    ui.input.addEventListener("keydown", (event) => {
      // Not while an IME is composing (Chinese input): that Enter picks the characters.
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing && event.keyCode !== 229) {
        event.preventDefault();
        submitInput();
      }
    });
    ui.input.addEventListener("input", () => {
      autoGrow();
      sendTyping();
    });
  }

  function autoGrow() {
    ui.input.style.height = "auto";
    ui.input.style.height = `${Math.min(ui.input.scrollHeight + 2, 120)}px`;
  }

  function openPanel() {
    state.open = true;
    ui.panel.hidden = false;
    ui.root.classList.add("cs-open");
    ui.launcher.setAttribute("aria-expanded", "true");
    ui.launcher.setAttribute("aria-label", T.close);
    setUnread(0);
    scrollToEnd(true);
    ui.input.focus();
    ensureConnected();
  }

  function closePanel() {
    state.open = false;
    ui.panel.hidden = true;
    ui.root.classList.remove("cs-open");
    ui.launcher.setAttribute("aria-expanded", "false");
    ui.launcher.setAttribute("aria-label", T.open);
    ui.launcher.focus();
  }

  function setUnread(count) {
    state.unread = count;
    ui.badge.hidden = count === 0;
    ui.badge.textContent = count > 9 ? "9+" : String(count);
    ui.launcher.setAttribute("aria-label", state.open ? T.close : count ? `${T.open} (${T.newMessages(count)})` : T.open);
  }

  function nearBottom() {
    return ui.log.scrollHeight - ui.log.scrollTop - ui.log.clientHeight < 80;
  }

  function scrollToEnd(force) {
    if (force || nearBottom()) ui.log.scrollTop = ui.log.scrollHeight;
  }

  /** Insert before the typing indicator, which always stays last in the log. */
  function append(node) {
    const stick = nearBottom();
    ui.log.insertBefore(node, ui.typing.parentNode === ui.log ? ui.typing : null);
    if (ui.typing.parentNode !== ui.log) ui.log.append(ui.typing);
    scrollToEnd(stick);
    endButtonShow();
  }

  /** "End chat" once the chat has a message, until it is closed. */
  function endButtonShow() {
    ui.end.hidden = state.status === "closed" || !ui.log.querySelector('[data-testid="cs-message"]');
  }

  // --- bubbles ----------------------------------------------------------------------------------

  function bubbleCreate(sender) {
    const body = el("div", { className: "cs-bubble" });
    const node = el("div", { className: "cs-msg", "data-testid": "cs-message", "data-sender": sender }, body);
    node._body = body;
    return node;
  }

  function setAuthor(node, name) {
    let author = node.querySelector(":scope > .cs-author");
    if (!author) {
      author = el("div", { className: "cs-author" });
      node.prepend(author);
    }
    author.textContent = name;
  }

  function setState(node, text) {
    let label = node.querySelector(":scope > .cs-state");
    if (!text) {
      if (label) label.remove();
      return;
    }
    if (!label) node.append((label = el("div", { className: "cs-state" })));
    label.textContent = text;
  }

  function renderSources(node, sources) {
    const old = node.querySelector(":scope > .cs-sources");
    if (old) old.remove();
    const list = (Array.isArray(sources) ? sources : []).filter((s) => s && (s.title || s.url));
    if (!list.length) return;
    const box = el("div", { className: "cs-sources" }, el("span", { className: "cs-sources-label", text: `${T.sources}:` }));
    list.forEach((source, index) => {
      const label = `[${index + 1}] ${source.title || source.url}`;
      const href = source.url ? safeUrl(source.url) : null;
      box.append(
        href
          ? el("a", {
              className: "cs-citation",
              "data-testid": "cs-citation",
              href,
              target: "_blank",
              rel: "noopener noreferrer",
              title: source.title || source.url,
              text: label,
            })
          : el("span", {
              className: "cs-citation",
              "data-testid": "cs-citation",
              title: source.title || "",
              text: label,
            }),
      );
    });
    node.insertBefore(box, node.querySelector(":scope > .cs-quick, :scope > .cs-state"));
  }

  function renderQuickReplies(node, choices) {
    const old = node.querySelector(":scope > .cs-quick");
    if (old) old.remove();
    const list = (Array.isArray(choices) ? choices : []).filter((c) => typeof c === "string" && c.trim());
    if (!list.length) return;
    const box = el("div", { className: "cs-quick", role: "group", "aria-label": T.quickReplies });
    for (const choice of list.slice(0, 8)) {
      const button = el("button", { type: "button", className: "cs-quick-reply", "data-testid": "cs-quick-reply", text: choice });
      button.addEventListener("click", () => {
        sendMessage(choice);
        ui.input.focus();
      });
      box.append(button);
    }
    node.append(box);
  }

  function clearQuickReplies() {
    for (const box of ui.log.querySelectorAll(".cs-quick")) box.remove();
  }

  function choicesOf(awaiting, quickReplies) {
    const choices = awaiting && Array.isArray(awaiting.choices) ? awaiting.choices : [];
    return choices.length ? choices : quickReplies || [];
  }

  /** Quick replies answer the latest question only: drop them from every bubble but the last. */
  function pruneQuickReplies() {
    const bubbles = ui.log.querySelectorAll('[data-testid="cs-message"]');
    const last = bubbles[bubbles.length - 1];
    for (const box of ui.log.querySelectorAll(".cs-quick")) if (box.parentNode !== last) box.remove();
  }

  /** A bot turn's bubble in its final form: text, citations, quick replies. */
  function botFinal(node, { text, sources, awaiting, quickReplies }) {
    node._final = true;
    node.dataset.final = "true";
    renderMarkdown(text, node._body);
    renderSources(node, sources);
    renderQuickReplies(node, choicesOf(awaiting, quickReplies));
    node.removeAttribute("aria-busy");
  }

  function systemText(message) {
    const event = message.metadata && message.metadata.event;
    if (event === "taken_over") return T.sysTakenOver(agentNameFrom(message) || T.aPerson);
    if (event === "handed_back") return T.sysHandedBack;
    return message.text;
  }

  /** The staff member's name in a system "taken over" message (metadata.agent_name; older ones: the text). */
  function agentNameFrom(message) {
    if (message.author_name) return message.author_name;
    if (message.metadata && message.metadata.agent_name) return message.metadata.agent_name;
    const match = /^(.+?) joined the conversation\.?$/.exec(message.text || "");
    return match ? match[1] : null;
  }

  /** Render or update one message object; returns its bubble. */
  function upsertMessage(message, { live }) {
    if (!message || message.internal) return null;
    const meta = message.metadata || {};
    let node = state.byId.get(message.id);
    if (!node && message.sender === "customer" && message.client_id) node = state.byClient.get(message.client_id);
    if (!node && message.sender === "bot" && meta.turn_id != null) node = state.byTurn.get(meta.turn_id);
    const fresh = !node;
    if (fresh) node = bubbleCreate(message.sender);
    node.dataset.messageId = String(message.id);
    state.byId.set(message.id, node);

    if (message.sender === "customer") {
      if (message.client_id) {
        node.dataset.clientId = message.client_id;
        state.byClient.set(message.client_id, node);
        dropPending(message.client_id);
      }
      node.classList.remove("cs-pending", "cs-failed");
      setState(node, "");
      node._body.textContent = message.text; // customers' text shown exactly as typed
    } else if (message.sender === "bot") {
      if (meta.turn_id != null) state.byTurn.set(meta.turn_id, node);
      botFinal(node, {
        text: message.text,
        sources: message.sources,
        awaiting: meta.awaiting,
        quickReplies: meta.quick_replies,
      });
    } else if (message.sender === "agent") {
      if (message.author_name) setAgentName(message.author_name);
      setAuthor(node, message.author_name || state.agentName || T.agent);
      renderMarkdown(message.text, node._body);
    } else {
      if (meta.event === "taken_over") {
        const name = agentNameFrom(message);
        if (name && !state.agentName) setAgentName(name);
      }
      node._body.textContent = systemText(message);
    }
    if (fresh) append(node);
    if (live) pruneQuickReplies();
    if (live && fresh && message.sender !== "customer") {
      if (!state.open) setUnread(state.unread + 1);
    }
    return node;
  }

  function notice(text) {
    const node = el("div", { className: "cs-notice", role: "alert", text });
    append(node);
    return node;
  }

  // --- typing indicator and banner --------------------------------------------------------------

  function showTyping(label, ms) {
    ui.typingLabel.textContent = label;
    ui.typing.hidden = false;
    ui.typing.classList.remove("cs-sr");
    if (ui.typing.parentNode !== ui.log || ui.log.lastChild !== ui.typing) ui.log.append(ui.typing);
    clearTimeout(state.typingTimer);
    state.typingTimer = setTimeout(hideTyping, ms);
    scrollToEnd(false);
  }

  function hideTyping() {
    clearTimeout(state.typingTimer);
    ui.typing.hidden = true;
  }

  function botMayAnswer() {
    return state.status !== "human" && state.status !== "waiting_human";
  }

  function setAgentName(name) {
    if (!name || name === state.agentName) return;
    state.agentName = name;
    if (state.status === "human") setBanner(T.joined(name));
  }

  function setBanner(text) {
    ui.banner.textContent = text || "";
    ui.banner.hidden = !text;
  }

  // staffOnline: what the escalation said (true, false), or undefined when not known (a reload):
  // the banner then says what holds either way.
  function applyStatus(status, { live, staffOnline }) {
    const previous = state.status;
    state.status = status;
    const waiting = { true: T.waiting, false: T.waitingOffline }[staffOnline] || T.handedOver;
    if (status === "waiting_human") setBanner(waiting);
    else if (status === "human") setBanner(T.joined(state.agentName || T.aPerson));
    else if (status === "closed") setBanner(T.closed);
    else if (status === "bot" && live && (previous === "human" || previous === "waiting_human")) setBanner(T.back);
    else if (status === "bot" && (!live || previous === "closed")) setBanner("");
    if (status === "human" || status === "waiting_human" || status === "closed") hideTyping();
    endButtonShow();
    if (status !== "closed") ratingRemove();
  }

  // --- the rating asked once a chat closes (CSAT) --------------------------------------------------

  function ratingAsk() {
    if (ui.rating) return;
    let score = 0;
    const stars = [1, 2, 3, 4, 5].map((n) =>
      el("button", {
        type: "button",
        className: "cs-star",
        "data-testid": "cs-star",
        "aria-label": T.rateStar(n),
        "aria-pressed": "false",
        text: "★",
      }),
    );
    const comment = el("textarea", { "aria-label": T.rateComment, placeholder: T.rateComment, maxlength: "1000" });
    const send = el("button", {
      type: "button",
      className: "cs-rating-send",
      "data-testid": "cs-rating-send",
      text: T.rateSend,
      disabled: true,
    });
    stars.forEach((star, index) =>
      star.addEventListener("click", () => {
        score = index + 1;
        stars.forEach((other, i) => other.setAttribute("aria-pressed", String(i < score)));
        send.disabled = false;
      }),
    );
    send.addEventListener("click", () => {
      if (!score || !state.ws || state.ws.readyState !== WebSocket.OPEN) return;
      send.disabled = true;
      state.ws.send(JSON.stringify({ type: "rating.send", score, comment: comment.value.trim() }));
    });
    ui.rating = el(
      "div",
      { className: "cs-rating", "data-testid": "cs-rating", role: "group", "aria-label": T.rateTitle },
      el("p", { className: "cs-rating-title", text: T.rateTitle }),
      el("div", { className: "cs-stars" }, ...stars),
      comment,
      send,
    );
    append(ui.rating);
  }

  function ratingRemove() {
    if (!ui.rating) return;
    ui.rating.remove();
    ui.rating = null;
  }

  function ratingDone() {
    ratingRemove();
    const thanks = el("div", { className: "cs-notice", "data-testid": "cs-rating-thanks", text: T.rateThanks });
    thanks.style.color = "var(--cs-muted)";
    thanks.style.background = "transparent";
    append(thanks);
  }

  // --- server events ----------------------------------------------------------------------------

  function onHistory(event) {
    state.historyLoaded = true;
    state.agentName = event.agent_name || null;
    // Rebuild from the transcript (a reconnect may have missed anything); keep what is still unsent.
    for (const node of ui.log.querySelectorAll('[data-testid="cs-message"], .cs-notice')) node.remove();
    state.byId.clear();
    state.byClient.clear();
    state.byTurn.clear();
    const messages = (event.messages || []).filter((m) => m && !m.internal);
    const seen = new Set();
    for (const message of messages) {
      if (seen.has(message.id)) continue;
      seen.add(message.id);
      upsertMessage(message, { live: false });
    }
    for (const message of messages) {
      if (message.sender === "agent" && message.author_name) state.agentName = message.author_name;
    }
    ui.welcome.hidden = messages.length > 0;
    for (const item of state.pending) addPendingBubble(item);
    pruneQuickReplies();
    ratingRemove();
    applyStatus(event.status || "bot", { live: false });
    if (event.rating_wanted) ratingAsk();
    if (event.awaiting_reply || (state.pending.length && botMayAnswer())) showTyping(T.typing, REPLY_WAIT_MS);
    else hideTyping();
    scrollToEnd(true);
  }

  function onMessageCreated(message) {
    if (!message || message.internal) return;
    ui.welcome.hidden = true;
    if (message.sender === "bot" || message.sender === "agent") hideTyping();
    if (message.sender === "customer" && !(message.client_id && state.byClient.has(message.client_id))) {
      clearQuickReplies(); // sent from another tab
    }
    upsertMessage(message, { live: true });
  }

  function onDelta(event) {
    if (typeof event.delta !== "string") return;
    let node = state.byTurn.get(event.turn_id);
    if (node && node._final) return; // a delta replayed after the final text: nothing to add
    hideTyping();
    ui.welcome.hidden = true;
    if (!node) {
      node = bubbleCreate("bot");
      node.setAttribute("aria-busy", "true");
      node._streamed = "";
      state.byTurn.set(event.turn_id, node);
      append(node);
      if (!state.open) setUnread(state.unread + 1);
    }
    node._streamed = (node._streamed || "") + event.delta;
    node.dataset.deltas = String(Number(node.dataset.deltas || 0) + 1);
    const stick = nearBottom();
    renderMarkdown(node._streamed, node._body);
    scrollToEnd(stick);
  }

  function onReplyDone(event) {
    hideTyping();
    ui.welcome.hidden = true;
    let node = state.byTurn.get(event.turn_id);
    if (!node && event.message_id != null) node = state.byId.get(event.message_id);
    if (!node) {
      node = bubbleCreate("bot");
      append(node);
      if (!state.open) setUnread(state.unread + 1);
    }
    state.byTurn.set(event.turn_id, node);
    if (event.message_id != null) {
      node.dataset.messageId = String(event.message_id);
      state.byId.set(event.message_id, node);
    }
    node.dataset.turnDone = "true";
    botFinal(node, {
      text: event.text || "",
      sources: event.sources,
      awaiting: event.awaiting,
      quickReplies: event.quick_replies,
    });
    pruneQuickReplies();
    scrollToEnd(false);
  }

  function onError(event) {
    if (event.code === "bad_token") return; // the 4401 close that follows starts a fresh session
    if (event.code === "already_rated") return ratingDone(); // rated in another tab
    if (ui.rating && ["bad_score", "bad_comment", "not_closed"].includes(event.code)) {
      ui.rating.querySelector(".cs-rating-send").disabled = false;
    }
    if (event.client_id) {
      dropPending(event.client_id);
      const node = state.byClient.get(event.client_id);
      if (node && !node.dataset.messageId) {
        node.classList.remove("cs-pending");
        node.classList.add("cs-failed");
        setState(node, T.failed);
      }
      hideTyping();
    }
    if (event.message) notice(event.message);
  }

  function onEvent(event) {
    switch (event.type) {
      case "history":
        onHistory(event);
        flushPending();
        break;
      case "message.created":
        onMessageCreated(event.message);
        break;
      case "reply.delta":
        onDelta(event);
        break;
      case "reply.done":
        onReplyDone(event);
        break;
      case "typing":
        if (event.sender === "agent") {
          if (event.author_name || event.name) setAgentName(event.author_name || event.name);
          showTyping(T.agentTyping(state.agentName || T.agent), TYPING_SHOW_MS);
        }
        break;
      case "status.changed":
        applyStatus(event.status, { live: true, staffOnline: event.staff_online });
        if (event.status === "closed" && event.rating_wanted) ratingAsk();
        break;
      case "rating.saved":
        ratingDone();
        break;
      case "error":
        onError(event);
        break;
      default:
        break; // newer server events are ignored
    }
  }

  // --- connection -------------------------------------------------------------------------------

  function showConnection(text) {
    ui.connection.textContent = text || "";
    ui.connection.hidden = !text;
  }

  async function openSession() {
    const body = { site_key: SITE_KEY || undefined, locale: LOCALE };
    if (identityToken) body.identity_token = identityToken;
    if (state.session) {
      body.conversation_id = state.session.conversation_id;
      body.token = state.session.token;
    }
    const response = await fetch(`${ORIGIN}/widget/session`, {
      method: "POST",
      mode: "cors",
      credentials: "omit",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    let payload = null;
    try {
      payload = await response.json();
    } catch (_) {
      payload = null;
    }
    if (!response.ok) {
      const error = (payload && payload.error) || {};
      if (error.code === "bad_token" && state.session) {
        forgetSession();
        return openSession();
      }
      if (error.field === "identity_token" && identityToken && state.session) {
        identityToken = "";
        return openSession();
      }
      const failure = new Error(error.message || `HTTP ${response.status}`);
      failure.fatal = response.status >= 400 && response.status < 500 && error.code !== "rate_limited";
      throw failure;
    }
    state.session = { conversation_id: payload.conversation_id, token: payload.token };
    state.wsUrl = payload.ws_url;
    saveSession(state.session);
    if (payload.status) state.status = payload.status;
    return payload;
  }

  function forgetSession() {
    state.session = null;
    state.wsUrl = null;
    saveSession(null);
  }

  function ensureConnected() {
    if (state.connecting || state.connected || state.reconnectTimer) return;
    connect();
  }

  async function connect() {
    state.connecting = true;
    try {
      if (!state.wsUrl) await openSession();
    } catch (error) {
      state.connecting = false;
      if (error && error.fatal) {
        showConnection(error.message);
        return;
      }
      scheduleReconnect();
      return;
    }
    let ws;
    try {
      ws = new WebSocket(state.wsUrl);
    } catch (_) {
      state.connecting = false;
      state.wsUrl = null;
      scheduleReconnect();
      return;
    }
    state.ws = ws;
    ws.onopen = () => {
      state.connecting = false;
      state.connected = true;
    };
    ws.onmessage = (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch (_) {
        return;
      }
      if (!event || typeof event.type !== "string") return;
      if (event.type === "history") {
        state.attempts = 0;
        state.everConnected = true;
        clearTimeout(state.connectionTimer);
        state.connectionTimer = null;
        showConnection("");
      }
      onEvent(event);
    };
    ws.onclose = (close) => {
      if (state.ws !== ws) return;
      state.ws = null;
      state.connecting = false;
      state.connected = false;
      if (close.code === 4401) {
        // The token is no longer good: a fresh chat (the old one cannot be read any more).
        forgetSession();
        state.agentName = null;
      } else {
        state.wsUrl = null; // a new session call refreshes the token before the next try
      }
      scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  function scheduleReconnect() {
    if (state.reconnectTimer) return;
    state.attempts += 1;
    // A blip that heals within a couple of seconds is not worth a warning.
    if (!state.connectionTimer) {
      state.connectionTimer = setTimeout(() => {
        state.connectionTimer = null;
        if (!state.connected) showConnection(state.everConnected ? T.reconnecting : T.offline);
      }, 2500);
    }
    const delay = Math.min(15000, 400 * 2 ** Math.min(state.attempts - 1, 6)) * (0.75 + Math.random() * 0.5);
    state.reconnectTimer = setTimeout(() => {
      state.reconnectTimer = null;
      connect();
    }, delay);
  }

  function reconnectNow() {
    if (state.connected || state.connecting) return;
    if (state.reconnectTimer) {
      clearTimeout(state.reconnectTimer);
      state.reconnectTimer = null;
    }
    if (state.session || state.open) connect();
  }

  window.addEventListener("online", reconnectNow);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") reconnectNow();
  });

  // --- sending ----------------------------------------------------------------------------------

  function dropPending(clientId) {
    state.pending = state.pending.filter((item) => item.client_id !== clientId);
  }

  function addPendingBubble(item) {
    let node = state.byClient.get(item.client_id);
    if (node && node.parentNode === ui.log && node.dataset.messageId) return;
    if (!node) {
      node = bubbleCreate("customer");
      node.dataset.clientId = item.client_id;
      node._body.textContent = item.text;
      state.byClient.set(item.client_id, node);
    }
    node.classList.add("cs-pending");
    setState(node, T.sending);
    append(node);
  }

  function flushPending() {
    if (!state.ws || state.ws.readyState !== WebSocket.OPEN || !state.historyLoaded) return;
    for (const item of state.pending) {
      state.ws.send(JSON.stringify({ type: "message.send", text: item.text, client_id: item.client_id }));
    }
  }

  function sendMessage(text) {
    const clean = String(text || "").trim();
    if (!clean) return false;
    const item = { client_id: uuid(), text: clean };
    state.pending.push(item);
    clearQuickReplies();
    ui.welcome.hidden = true;
    addPendingBubble(item);
    scrollToEnd(true);
    if (state.status === "closed") {
      state.status = "bot"; // the server reopens a closed chat on the next message
      setBanner("");
    }
    if (botMayAnswer()) showTyping(T.typing, REPLY_WAIT_MS);
    if (state.ws && state.ws.readyState === WebSocket.OPEN && state.historyLoaded) {
      state.ws.send(JSON.stringify({ type: "message.send", text: item.text, client_id: item.client_id }));
    } else {
      ensureConnected();
    }
    return true;
  }

  function submitInput() {
    if (sendMessage(ui.input.value)) {
      ui.input.value = "";
      autoGrow();
    }
    ui.input.focus();
  }

  function sendTyping() {
    const now = Date.now();
    if (!ui.input.value.trim() || now - state.lastTypingSent < TYPING_EVERY_MS) return;
    if (!state.ws || state.ws.readyState !== WebSocket.OPEN) return;
    state.lastTypingSent = now;
    state.ws.send(JSON.stringify({ type: "typing" }));
  }

  // --- start ------------------------------------------------------------------------------------

  function start() {
    build();
    // A returning visitor (or a signed-in customer) reconnects at once, so replies and unread
    // counts arrive with the panel closed; a new visitor opens no chat until they open the panel.
    if (state.session) connect();
  }

  if (document.body) start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
})();
