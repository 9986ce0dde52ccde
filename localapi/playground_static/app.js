// The playground page: a Telegram group and private chats drawn from the local Bot API
// server's JSON API (localapi/playground.py). No build step, no libraries.
"use strict";

const state = {
  people: [],
  group: null,
  forum: null,
  topics: [],      // the open forum's topics, General first (its message_thread_id is null)
  threadId: null,  // the open topic of the forum; null: General
  bot: null,
  me: null,
  chatId: null,
  replyTo: null,
  shown: "",
};

const $ = (id) => document.getElementById(id);

// ----- the page's own words, in the language of the person one plays ---------------------------
// The bot's words come from the bot (its locales/); these are only the playground's.

const WORDS = {
  ru: {
    title: "Кубы — песочница",
    you: "Вы",
    admin: "админ группы",
    player: "игрок",
    group: "группа",
    private: "личный чат",
    chats: "Чаты",
    commands: "Команды",
    send: "Отправить",
    cancelReply: "Отменить ответ",
    placeholder: "Сообщение… например /r 7 6",
    reply: "↩ ответить",
    download: "скачать",
    edited: "изменено",
    hint: "Песочница на этом компьютере: ничего не уходит в интернет, всё хранится в памяти и " +
      "забывается, когда её останавливают. Каждый вызов бота сверяется со схемой Telegram Bot API.",
    held: "⏳ ждём: Telegram разрешает 20 сообщений в минуту в группе",
    heldLeft: (seconds) => `ещё ~${seconds} с`,
    sheet: "Лист персонажа",
    close: "Закрыть",
    forum: "форум",
    topics: "Темы",
    closedTopic: "Тема закрыта",
    closeTopic: "Закрыть тему",
    reopenTopic: "Открыть тему",
    topicCreated: (name) => `Создана тема «${name}»`,
    topicEdited: (name) => `Тема переименована в «${name}»`,
    topicClosed: "Тема закрыта",
    topicReopened: "Тема снова открыта",
  },
  en: {
    title: "Dice bot — playground",
    you: "You",
    admin: "group admin",
    player: "player",
    group: "group",
    private: "private chat",
    chats: "Chats",
    commands: "Commands",
    send: "Send",
    cancelReply: "Cancel reply",
    placeholder: "Message… e.g. /r 7 6",
    reply: "↩ reply",
    download: "download",
    edited: "edited",
    hint: "A playground on this machine: nothing leaves it, everything is kept in memory and " +
      "forgotten when it stops. Every call the bot makes is checked against the Telegram Bot " +
      "API schema.",
    held: "⏳ waiting: Telegram allows 20 messages a minute in a group",
    heldLeft: (seconds) => `~${seconds} s left`,
    sheet: "Character sheet",
    close: "Close",
    forum: "forum",
    topics: "Topics",
    closedTopic: "The topic is closed",
    closeTopic: "Close topic",
    reopenTopic: "Reopen topic",
    topicCreated: (name) => `Topic “${name}” created`,
    topicEdited: (name) => `Topic renamed to “${name}”`,
    topicClosed: "Topic closed",
    topicReopened: "Topic reopened",
  },
};

function language() {
  const code = ((state.me && state.me.language_code) || "").slice(0, 2);
  return WORDS[code] ? code : "en";
}

function t(key) {
  return WORDS[language()][key];
}

function botName() {
  return (state.bot.names && state.bot.names[language()]) || state.bot.name;
}

// Elements name their words: data-words (text), data-words-title, data-words-placeholder.
function applyWords() {
  document.documentElement.lang = language();
  document.title = t("title");
  for (const element of document.querySelectorAll("[data-words]")) {
    element.textContent = t(element.dataset.words);
  }
  for (const element of document.querySelectorAll("[data-words-title]")) {
    element.title = t(element.dataset.wordsTitle);
    element.setAttribute("aria-label", element.title);
  }
  for (const element of document.querySelectorAll("[data-words-placeholder]")) {
    element.placeholder = t(element.dataset.wordsPlaceholder);
  }
  $("people").setAttribute("aria-label", t("you"));
}

async function api(path, body) {
  const options = body === undefined
    ? {}
    : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, options);
  if (!response.ok) {
    throw new Error(await response.text());
  }
  return response.json();
}

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

// Telegram entities (UTF-16 offsets, which is what JavaScript strings index) to HTML.
const TAGS = {
  bold: ["<b>", "</b>"],
  italic: ["<i>", "</i>"],
  underline: ["<u>", "</u>"],
  strikethrough: ["<s>", "</s>"],
  code: ["<code>", "</code>"],
  pre: ["<pre>", "</pre>"],
  blockquote: ["<blockquote>", "</blockquote>"],
  expandable_blockquote: ["<blockquote>", "</blockquote>"],
  spoiler: ['<span class="spoiler">', "</span>"],
};

function renderEntities(text, entities) {
  const opens = new Map();
  const closes = new Map();
  const sorted = [...(entities || [])].sort((a, b) => a.offset - b.offset || b.length - a.length);
  for (const entity of sorted) {
    let tag = TAGS[entity.type];
    if (entity.type === "text_link" && /^https?:/.test(entity.url || "")) {
      tag = [`<a href="${escapeHtml(entity.url)}" target="_blank" rel="noopener">`, "</a>"];
    }
    if (entity.type === "bot_command") {
      const command = text.slice(entity.offset, entity.offset + entity.length);
      tag = [`<a href="#" class="command" data-command="${escapeHtml(command)}">`, "</a>"];
    }
    if (!tag) continue;
    const end = entity.offset + entity.length;
    if (!opens.has(entity.offset)) opens.set(entity.offset, []);
    opens.get(entity.offset).push(tag[0]);
    if (!closes.has(end)) closes.set(end, []);
    closes.get(end).unshift(tag[1]);
  }
  let html = "";
  for (let i = 0; i <= text.length; i++) {
    if (closes.has(i)) html += closes.get(i).join("");
    if (opens.has(i)) html += opens.get(i).join("");
    if (i < text.length) html += escapeHtml(text[i]);
  }
  return html;
}

// ----- /commands in messages: tappable, like in Telegram -------------------------------------

// Telegram marks /commands in the bot's messages too; the local server does it only for what
// people type, so the page finds them in the bot's text (outside code and links).
const COMMAND = /(?<![\w/@])\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?![\w/])/g;
const NOT_COMMANDS = new Set(["code", "pre", "text_link", "url", "bot_command"]);

function withCommands(text, entities) {
  const all = [...(entities || [])];
  const covered = all.filter((e) => NOT_COMMANDS.has(e.type));
  for (const match of text.matchAll(COMMAND)) {
    const offset = match.index;
    const end = offset + match[0].length;
    if (covered.some((e) => e.offset < end && offset < e.offset + e.length)) continue;
    all.push({ type: "bot_command", offset, length: match[0].length });
  }
  return all;
}

function makeCommandsTappable(box) {
  for (const link of box.querySelectorAll("a.command")) {
    link.onclick = (event) => {
      event.preventDefault();
      sendTyped(link.dataset.command);
    };
  }
}

function personById(id) {
  return state.people.find((p) => p.user_id === id);
}

function chatsOf(me) {
  const chats = [{ chat_id: state.group.chat_id, title: state.group.title, sub: t("group") }];
  if (state.forum) chats.push({ chat_id: state.forum.chat_id, title: state.forum.title, sub: t("forum") });
  chats.push({ chat_id: me.user_id, title: botName(), sub: t("private") });
  return chats;
}

function inForum() {
  return state.forum !== null && state.chatId === state.forum.chat_id;
}

// ----- a forum's topics: a list with General first, one topic open at a time, as Telegram -------

function openTopic(threadId) {
  state.threadId = threadId;
  state.replyTo = null;
  state.shown = "";
  $("reply-bar").hidden = true;
  drawTopics();
  refresh();
}

function currentTopic() {
  return state.topics.find((topic) => topic.message_thread_id === state.threadId) || null;
}

function drawTopics() {
  const box = $("topics");
  box.hidden = !inForum();
  box.innerHTML = "";
  if (!inForum()) { drawComposer(); return; }
  box.setAttribute("aria-label", t("topics"));
  for (const topic of state.topics) {
    const item = document.createElement("button");
    item.type = "button";
    item.className = "topic" + (topic.message_thread_id === state.threadId ? " active" : "")
      + (topic.closed ? " closed" : "");
    item.dataset.threadId = topic.message_thread_id === null ? "general" : topic.message_thread_id;
    item.setAttribute("role", "tab");
    item.setAttribute("aria-selected", topic.message_thread_id === state.threadId ? "true" : "false");
    item.textContent = (topic.closed ? "🔒 " : "# ") + topic.name;
    item.onclick = () => openTopic(topic.message_thread_id);
    box.appendChild(item);
  }
  const topic = currentTopic();
  if (topic && state.me.role === "storyteller") {
    // The topic's menu of an admin: close it, or open it again.
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "topic-toggle";
    toggle.textContent = topic.closed ? t("reopenTopic") : t("closeTopic");
    toggle.onclick = () => toggleTopic(topic);
    box.appendChild(toggle);
  }
  drawComposer();
}

// A closed topic takes no messages but an admin's: the input says so and is off.
function drawComposer() {
  const topic = inForum() ? currentTopic() : null;
  const closed = Boolean(topic && topic.closed && state.me.role !== "storyteller");
  $("text").disabled = closed;
  $("send").disabled = closed;
  $("menu").disabled = closed;
  $("text").placeholder = closed ? t("closedTopic") : t("placeholder");
  $("composer").classList.toggle("closed", closed);
}

async function toggleTopic(topic) {
  const path = topic.closed ? "/api/topics/reopen" : "/api/topics/close";
  try {
    await api(path, {
      chat_id: state.chatId, user_id: state.me.user_id, message_thread_id: topic.message_thread_id,
    });
  } catch (error) {
    toast(String(error.message || error));
  }
  refresh();
}

function serviceText(message) {
  switch (message.service) {
    case "forum_topic_created": return t("topicCreated")(message.topic_name || "");
    case "forum_topic_edited": return t("topicEdited")(message.topic_name || "");
    case "forum_topic_closed": return t("topicClosed");
    case "forum_topic_reopened": return t("topicReopened");
    default: return "";
  }
}

function drawSide() {
  const chats = $("chats");
  chats.innerHTML = "";
  for (const chat of chatsOf(state.me)) {
    const item = document.createElement("button");
    item.className = "chat-item" + (chat.chat_id === state.chatId ? " active" : "");
    item.innerHTML = `${escapeHtml(chat.title)}<small>${escapeHtml(chat.sub)}</small>`;
    item.onclick = () => openChat(chat.chat_id);
    chats.appendChild(item);
  }
}

function openChat(chatId) {
  if (chatId !== state.chatId) state.threadId = null;  // a forum opens on General
  state.chatId = chatId;
  state.replyTo = null;
  state.shown = "";
  $("reply-bar").hidden = true;
  drawHeld(null);
  const chat = chatsOf(state.me).find((c) => c.chat_id === chatId);
  $("chat-title").textContent = chat.title;
  $("chat-sub").textContent = chat.sub;
  $("side").classList.remove("open");
  drawSide();
  drawTopics();
  refresh();
}

function authorName(from) {
  if (!from) return "";
  if (from.id === state.bot.id) return botName();
  return from.first_name || "";
}

function drawKeyboard(message) {
  const markup = message.reply_markup;
  if (!markup || !markup.inline_keyboard) return null;
  const keyboard = document.createElement("div");
  keyboard.className = "keyboard";
  for (const row of markup.inline_keyboard) {
    const line = document.createElement("div");
    line.className = "row";
    for (const button of row) {
      const element = document.createElement("button");
      element.type = "button";
      element.textContent = button.text;
      if (button.callback_data !== undefined) {
        element.onclick = () => press(message.message_id, button.callback_data);
      } else if (button.web_app || miniAppCampaign(button.url) !== null) {
        // A Mini App opens beside the chat, as Telegram opens it over the chat.
        const link = button.web_app ? button.web_app.url : button.url;
        element.onclick = () => openMiniApp(miniAppCampaign(link) ?? here());
      } else if (button.url) {
        element.onclick = () => window.open(button.url, "_blank", "noopener");
      }
      line.appendChild(element);
    }
    keyboard.appendChild(line);
  }
  return keyboard;
}

function drawMessages(data) {
  const key = JSON.stringify([data.chat_id, data.version, state.me.user_id, state.threadId]);
  if (key === state.shown) return;
  state.shown = key;
  const box = $("messages");
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.innerHTML = "";
  // In a forum only the open topic's messages show (General's carry no thread).
  const forum = Array.isArray(data.topics);
  const shown = forum
    ? data.messages.filter((m) => (m.message_thread_id ?? null) === state.threadId)
    : data.messages;
  for (const message of shown) {
    if (message.service) {
      const line = document.createElement("div");
      line.className = "service";
      line.dataset.messageId = message.message_id;
      line.textContent = serviceText(message);
      box.appendChild(line);
      continue;
    }
    const own = message.from && message.from.id === state.me.user_id;
    const element = document.createElement("div");
    element.className = "message" + (own ? " own" : "");
    element.dataset.messageId = message.message_id;
    const bubble = document.createElement("div");
    bubble.className = "bubble";
    let html = "";
    if (!own) html += `<div class="author">${escapeHtml(authorName(message.from))}</div>`;
    if (message.via_bot) html += `<div class="via">via @${escapeHtml(message.via_bot)}</div>`;
    if (message.reply_to) {
      html += `<div class="quote"><b>${escapeHtml(authorName(message.reply_to.from))}</b> ${escapeHtml(message.reply_to.text)}</div>`;
    }
    const entities = message.from && message.from.is_bot
      ? withCommands(message.text, message.entities)
      : message.entities;
    if (message.document) {
      const doc = message.document;
      const size = doc.file_size ? ` · ${Math.max(1, Math.round(doc.file_size / 1024))} KB` : "";
      html += `<a class="document" href="${escapeHtml(doc.url)}" download="${escapeHtml(doc.file_name)}" target="_blank">`
        + `<span class="document-icon">📄</span><span><b>${escapeHtml(doc.file_name)}</b>`
        + `<small>${escapeHtml(t("download"))}${size}</small></span></a>`;
    }
    if (message.text) html += `<div class="text">${renderEntities(message.text, entities)}</div>`;
    bubble.innerHTML = html;
    const meta = document.createElement("div");
    meta.className = "meta";
    const reply = document.createElement("button");
    reply.textContent = t("reply");
    reply.onclick = () => startReply(message);
    meta.appendChild(reply);
    meta.appendChild(document.createTextNode(message.edited ? " · " + t("edited") : ""));
    bubble.appendChild(meta);
    element.appendChild(bubble);
    const keyboard = drawKeyboard(message);
    if (keyboard) element.appendChild(keyboard);
    box.appendChild(element);
  }
  for (const spoiler of box.querySelectorAll(".spoiler")) {
    spoiler.onclick = () => spoiler.classList.add("open");
  }
  makeCommandsTappable(box);
  const pinned = shown.find((m) => m.message_id === data.pinned);
  $("pinned").hidden = !pinned;
  if (pinned) {
    $("pinned").textContent = "📌 " + pinned.text.split("\n")[0];
    $("pinned").onclick = () => {
      const target = box.querySelector(`[data-message-id="${pinned.message_id}"]`);
      if (target) target.scrollIntoView({ block: "center" });
    };
  }
  if (atBottom || !box.dataset.seen) box.scrollTop = box.scrollHeight;
  box.dataset.seen = "1";
}

async function refresh() {
  if (state.chatId === null) return;
  const chatId = state.chatId;
  const data = await api(`/api/messages?chat_id=${chatId}`);
  if (chatId !== state.chatId) return;
  if (Array.isArray(data.topics)) {
    state.topics = data.topics;
    // A topic deleted while open: back to General, as Telegram does.
    if (!currentTopic()) state.threadId = null;
    drawTopics();
  }
  drawMessages(data);
  drawHeld(data.held);
}

// ----- replies held back by Telegram's 20 messages a minute in a group --------------------------
// The bot's limiter tells the server while it holds replies (localapi/playground.py): the page
// says so instead of a silent bot, and counts down to when the last of them may go.

let heldTimer = null;

function drawHeld(held) {
  clearInterval(heldTimer);
  heldTimer = null;
  const notice = $("held");
  if (!held || held.sends <= 0) {
    notice.hidden = true;
    return;
  }
  const until = Date.now() + held.seconds * 1000;
  const draw = () => {
    const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
    notice.textContent = left > 0 ? `${t("held")} · ${t("heldLeft")(left)}` : t("held");
  };
  draw();
  notice.hidden = false;
  heldTimer = setInterval(draw, 1000);
}

function startReply(message) {
  state.replyTo = message.message_id;
  $("reply-text").textContent = "↩ " + authorName(message.from) + ": " + message.text.split("\n")[0];
  $("reply-bar").hidden = false;
  $("text").focus();
}

let toastTimer = null;
function toast(text) {
  $("toast").textContent = text;
  $("toast").hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { $("toast").hidden = true; }, 2500);
}

function alertBox(text) {
  $("alert-text").textContent = text;
  $("alert").hidden = false;
}

async function press(messageId, data) {
  try {
    const result = await api("/api/press", {
      chat_id: state.chatId, user_id: state.me.user_id, message_id: messageId, data,
    });
    const answer = result.answer;
    if (answer && answer.text) {
      if (answer.show_alert) alertBox(answer.text); else toast(answer.text);
    }
  } catch (error) {
    toast(String(error.message || error));
  }
  refresh();
}

async function sendTyped(text) {
  $("commands").hidden = true;
  try { await send(text); } catch (error) { toast(String(error.message || error)); }
}

async function send(text) {
  const body = { chat_id: state.chatId, user_id: state.me.user_id, text };
  if (state.replyTo !== null) body.reply_to = state.replyTo;
  if (inForum() && state.threadId !== null) body.message_thread_id = state.threadId;
  state.replyTo = null;
  $("reply-bar").hidden = true;
  await api("/api/messages", body);
  refresh();
}

async function toggleCommands() {
  const box = $("commands");
  if (!box.hidden) { box.hidden = true; return; }
  const data = await api(`/api/commands?user_id=${state.me.user_id}`);
  box.innerHTML = "";
  for (const command of data.commands) {
    const item = document.createElement("button");
    item.type = "button";
    item.innerHTML = `<b>/${escapeHtml(command.command)}</b>${escapeHtml(command.description)}`;
    item.onclick = () => {
      $("text").value = "/" + command.command + " ";
      box.hidden = true;
      $("text").focus();
    };
    box.appendChild(item);
  }
  box.hidden = data.commands.length === 0;
}

// ----- who you are: one tap on a person, on a phone too -------------------------------------

function drawPeople() {
  const box = $("people");
  box.innerHTML = "";
  for (const person of state.people) {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "person";
    chip.dataset.userId = person.user_id;
    chip.setAttribute("role", "radio");
    const me = person.user_id === state.me.user_id;
    chip.setAttribute("aria-checked", me ? "true" : "false");
    // The group's admin: the bot itself says how one becomes the Storyteller (/st).
    const role = t(person.role === "storyteller" ? "admin" : "player");
    chip.title = `${person.name}: ${role}, ${person.language_code}`;
    chip.innerHTML =
      `<span class="avatar">${escapeHtml(person.name.slice(0, 1))}</span>` +
      `<span class="who"><b>${escapeHtml(person.name)}</b><small>${escapeHtml(role)}</small></span>`;
    chip.onclick = () => becomePerson(person.user_id);
    box.appendChild(chip);
  }
}

function becomePerson(userId) {
  const person = personById(userId);
  if (!person) return;
  const wasGroup = state.chatId === null || state.chatId === state.group.chat_id;
  const wasForum = inForum();
  state.me = person;
  localStorage.setItem("playground.me", person.user_id);
  $("commands").hidden = true;
  applyWords();
  drawPeople();
  if (wasForum) {
    drawSide();
    drawTopics();
    state.shown = "";
    refresh();
    return;
  }
  openChat(wasGroup ? state.group.chat_id : person.user_id);
}

function listen() {
  const events = new EventSource("/api/events");
  events.onmessage = () => refresh();
  events.onerror = () => setTimeout(refresh, 1000);
}

// ----- the Mini App sheet, beside the chat (Telegram shows it over the chat) ----------------------

// The campaign a Mini App link names: ``startapp=g100`` in a t.me direct link, ``c=g100`` in a
// web_app button's URL (``g100t7``: the forum topic 7 of -100), as {chatId, threadId}; null for
// any other link.
function miniAppCampaign(url) {
  if (!url || !state.bot) return null;
  let parsed;
  try { parsed = new URL(url, location.href); } catch (e) { return null; }
  const direct = parsed.hostname === "t.me" && parsed.pathname.startsWith("/" + state.bot.username + "/");
  const code = direct ? parsed.searchParams.get("startapp") : parsed.searchParams.get("c");
  if (!direct && !(state.miniapp && url.startsWith(state.miniapp.split("/miniapp/")[0]))) return null;
  const match = /^([gp])(\d+)(?:t(\d+))?$/.exec(code || "");
  if (!match) return direct ? here() : null;
  const chatId = match[1] === "g" ? -Number(match[2]) : Number(match[2]);
  return { chatId, threadId: match[3] ? Number(match[3]) : null };
}

// The campaign open on the screen: the chat, and its topic in a forum.
function here() {
  return { chatId: state.chatId, threadId: inForum() ? state.threadId : null };
}

function openMiniApp(campaign) {
  if (!state.miniapp) return;
  const panel = $("miniapp");
  const topic = campaign.threadId !== null ? `&message_thread_id=${campaign.threadId}` : "";
  $("miniapp-frame").src =
    `${state.miniapp}?user_id=${state.me.user_id}&chat_id=${campaign.chatId}${topic}`;
  $("miniapp-title").textContent = t("sheet");
  panel.hidden = false;
}

function closeMiniApp() {
  $("miniapp").hidden = true;
  $("miniapp-frame").src = "about:blank";
}

async function start() {
  const data = await api("/api/people");
  state.people = data.people;
  state.group = data.group;
  state.forum = data.forum || null;
  state.topics = state.forum ? state.forum.topics : [];
  state.bot = data.bot;
  state.miniapp = data.miniapp || null;
  $("sheet-open").hidden = !state.miniapp;
  $("sheet-open").onclick = () => openMiniApp(here());
  $("miniapp-close").onclick = closeMiniApp;
  const remembered = personById(Number(localStorage.getItem("playground.me")));
  const firstPlayer = state.people.find((p) => p.role === "player") || state.people[0];
  state.me = remembered || firstPlayer;
  $("composer").onsubmit = async (event) => {
    event.preventDefault();
    const text = $("text").value.trim();
    if (!text) return;
    $("text").value = "";
    hideInline();
    await sendTyped(text);
  };
  $("menu").onclick = toggleCommands;
  $("text").addEventListener("input", inlineTyped);
  $("reply-cancel").onclick = () => { state.replyTo = null; $("reply-bar").hidden = true; };
  $("alert-ok").onclick = () => { $("alert").hidden = true; };
  $("menu-toggle").onclick = () => $("side").classList.toggle("open");
  becomePerson(state.me.user_id);
  listen();
}

// ----- inline mode: "@bot 7 6" in the input lists the bot's results above it, as Telegram does;
// tapping one posts its message "via" the bot, and its button is pressed like any other.

const inline = { timer: null, asked: 0 };

function inlineQueryOf(text) {
  const name = state.bot && state.bot.username;
  if (!name) return null;
  const prefix = "@" + name.toLowerCase();
  const lower = text.toLowerCase();
  if (lower === prefix) return "";
  if (!lower.startsWith(prefix + " ")) return null;
  return text.slice(prefix.length + 1);
}

function hideInline() {
  clearTimeout(inline.timer);
  inline.asked += 1;  // an answer still on its way is not shown
  $("inline-results").hidden = true;
}

function inlineTyped() {
  const query = inlineQueryOf($("text").value);
  if (query === null) { hideInline(); return; }
  clearTimeout(inline.timer);
  inline.timer = setTimeout(() => askInline(query), 300);
}

async function askInline(query) {
  const asked = ++inline.asked;
  const chatId = state.chatId;
  let data;
  try {
    data = await api("/api/inline", { chat_id: chatId, user_id: state.me.user_id, query });
  } catch (error) {
    toast(String(error.message || error));
    return;
  }
  if (asked !== inline.asked || chatId !== state.chatId) return;
  drawInline(data);
}

function drawInline(data) {
  const box = $("inline-results");
  box.innerHTML = "";
  for (const result of data.results) {
    const item = document.createElement("button");
    item.type = "button";
    item.dataset.resultId = result.id;
    item.innerHTML = `<b>${escapeHtml(result.title)}</b><small>${escapeHtml(result.description || "")}</small>`;
    item.onclick = () => chooseInline(data.query_id, result.id);
    box.appendChild(item);
  }
  if (!data.results.length) {
    box.innerHTML = '<div class="inline-empty">Бот не ответил / no answer from the bot</div>';
  }
  box.hidden = false;
}

async function chooseInline(queryId, resultId) {
  hideInline();
  $("text").value = "";
  try {
    await api("/api/inline/choose", {
      chat_id: state.chatId, user_id: state.me.user_id, query_id: queryId, result_id: resultId,
    });
  } catch (error) {
    toast(String(error.message || error));
  }
  refresh();
}

start();
