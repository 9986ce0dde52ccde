"""The playground's web side: a Telegram group in the browser, on the same local Bot API server
the tests use (docs/product.md §4 "Try it in one minute").

One aiohttp application serves both: the Bot API (``/bot{token}/{method}``, validated against
the vendored schema exactly as in the tests, so the page shows what Telegram would be sent)
and the page with its small JSON API:

- ``GET /api/people`` — who one can be (the Storyteller, an admin of the group, and four
  players, each with a Telegram language), the group, the forum group (``forum``:
  ``{"chat_id", "title", "topics": [{"message_thread_id", "name", "closed"}]}``, General
  first with a null ``message_thread_id``, as a forum supergroup has one topic per chronicle)
  and the bot;
- ``POST /api/messages`` ``{"chat_id", "user_id", "text"[, "reply_to"][,
  "message_thread_id"]}`` — a user writes: a negative ``chat_id`` is a group, the user's own
  id their private chat with the bot; ``message_thread_id`` a topic of the forum (none or
  null: General; a reply goes to the replied-to message's topic); a closed topic answers 403
  to anyone but an admin;
- ``GET /api/messages?chat_id=N`` — that chat's messages in order, each with ``message_id``,
  ``from``, ``text`` (with ``entities``), ``reply_markup`` and ``message_thread_id`` (its
  topic; null in General and outside forums), a forum's service messages with ``service``
  (``forum_topic_created``…); a forum's answer also lists ``topics`` as ``/api/people`` does;
  a document (``sendDocument``)
  also with ``document``: ``{"file_name", "file_size", "url"}``, its caption as ``text``;
- ``POST /api/topics/close`` and ``POST /api/topics/reopen`` ``{"chat_id", "user_id",
  "message_thread_id"}`` — an admin (or the topic's creator) closes or reopens a topic (null:
  General, admins only), as in Telegram's topic menu: 403 for anyone else, 404 for no such
  topic, 409 if it already is; the answer is ``{"message_id", "topics"}``;
- ``GET /api/files/ID`` — a document's bytes (its ``url`` above);
- ``POST /api/press`` ``{"chat_id", "user_id", "message_id", "data"}`` — a user presses an
  inline button; the answer (a toast or an alert) comes back once the bot has given it;
- ``GET /api/commands?user_id=N`` — the command menu the bot set for that user's language;
- ``GET /api/events`` — a server-sent event at every change, so the page redraws live;
- ``GET /favicon.ico`` — the page's icon, a die;
- ``GET /miniapp/?user_id=N&chat_id=C[&message_thread_id=T]`` — the bot's Mini App sheet
  opened as Telegram opens it (from a forum topic, with ``T``): launch data (``initData``)
  for that user and campaign, signed with the bot's token as
  Telegram signs it (``localapi/webapp.py``), in the URL's ``#tgWebAppData``; the bot's own
  process serves the page and its API under ``/miniapp/`` beside these routes.
  ``/api/people`` names this base URL as ``miniapp`` once the bot has mounted it;
- ``POST /api/inline`` ``{"chat_id", "user_id", "query"}`` — a user types ``@bot query``
  (inline mode): the results the bot answered with, once it has (``id``, ``title``,
  ``description``), to show above the input as Telegram does;
- ``POST /api/inline/choose`` ``{"chat_id", "user_id", "query_id", "result_id"}`` — the
  user taps one: its message is posted in the chat "via" the bot, and its buttons are pressed
  through ``/api/press`` like any other.

The messages of a group also say ``held``: ``{"sends", "seconds"}`` while the bot's limiter
holds replies back because Telegram allows a bot 20 messages a minute in one group, so the
page can say why the bot is silent (null otherwise). Whoever runs the bot tells it through
``Playground.hold``; the bot's display name is ``BOT_NAMES`` in the viewer's language, as
Telegram shows a bot's name set per language, and not the name of a human role.

Nothing here knows the bot: the bot process talks to this server over HTTP like to Telegram.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

from localapi import webapp
from localapi.server import (
    ChatMessage,
    FakeBotApi,
    FakeChat,
    FakeUser,
    GroupShape,
    JsonDict,
    TopicClosedError,
)

STATIC = Path(__file__).resolve().parent / "playground_static"
GROUP_ID = -100
GROUP_TITLE = "Хроника"
FORUM_ID = -200
FORUM_TITLE = "Ролевой клуб"
FORUM_TOPICS = ("Маг", "Тёмные века")  # one topic per chronicle, made when the world starts
GENERAL_NAME = "General"
# The bot's name as each language's users see it: a die, not the Storyteller, who is a person.
BOT_NAMES = {"ru": "Кубы", "en": "Dice bot"}
PRESS_WAIT = 5.0  # seconds to wait for the bot's answer to a button
EVENT_KEEPALIVE = 15.0
TEXT_MAX = 4096
INLINE_QUERY_MAX = 256  # Telegram's limit on an inline query's text
MINIAPP_PATH = "/miniapp/"  # where the bot mounts its Mini App beside the playground


@dataclass(frozen=True)
class Person:
    user: FakeUser
    role: str  # "storyteller" or "player"


class Playground:
    """The simulated world of the page: one group, its five people and their private chats."""

    def __init__(self, api: FakeBotApi) -> None:
        self.api = api
        cast = [
            ("Мастер", "ru", "storyteller"),
            ("Аня", "ru", "player"),
            ("Борис", "ru", "player"),
            ("Вера", "ru", "player"),
            ("John", "en", "player"),
        ]
        self.people = [
            Person(api.add_user(name, language_code=lang, user_id=1001 + i), role)
            for i, (name, lang, role) in enumerate(cast)
        ]
        storyteller = self.people[0].user
        self.group = api.add_group(
            GROUP_TITLE,
            owner=storyteller,
            members=[p.user for p in self.people[1:]],
            bot_is_admin=True,
            shape=GroupShape(chat_id=GROUP_ID),
        )
        # A forum supergroup beside the group: the bot is its admin, as a club's bot is.
        self.forum = api.add_group(
            FORUM_TITLE,
            owner=storyteller,
            members=[p.user for p in self.people[1:]],
            bot_is_admin=True,
            shape=GroupShape(chat_id=FORUM_ID, is_forum=True),
        )
        for name in FORUM_TOPICS:
            api.create_topic(self.forum, name, by=storyteller, announce=False)
        for person in self.people:
            api.open_private_chat(person.user)
        self._held: dict[int, tuple[int, float]] = {}  # chat: held sends, released by when
        self.miniapp = False  # the bot serves its Mini App under MINIAPP_PATH

    def hold(self, chat_id: int | str, sends: int, seconds: float) -> None:
        """The bot's limiter holds ``sends`` replies to the chat back, the last for ``seconds``
        more (none when ``sends`` is 0): the page shows a notice until they go."""
        if not isinstance(chat_id, int):
            return  # a public @channel: not in the playground
        if sends > 0:
            self._held[chat_id] = (sends, time.monotonic() + seconds)
        else:
            self._held.pop(chat_id, None)
        self.api.touch()

    def _held_in(self, chat_id: int) -> JsonDict | None:
        if chat_id not in self._held:
            return None
        sends, until = self._held[chat_id]
        return {"sends": sends, "seconds": round(max(0.0, until - time.monotonic()), 1)}

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/", self._index)
        app.router.add_get("/favicon.ico", self._favicon)
        app.router.add_static("/static/", STATIC)
        app.router.add_get("/api/people", self._people)
        app.router.add_get("/api/messages", self._messages)
        app.router.add_post("/api/messages", self._post_message)
        app.router.add_post("/api/press", self._press)
        app.router.add_get("/api/commands", self._commands)
        app.router.add_get("/api/events", self._events)
        app.router.add_get("/api/files/{file_id}", self._file)
        app.router.add_post("/api/topics/close", self._close_topic)
        app.router.add_post("/api/topics/reopen", self._reopen_topic)
        app.router.add_get(MINIAPP_PATH, self._open_miniapp)
        self.inline_routes(app)

    # ----- reading the request ----------------------------------------------------------------

    def _user(self, value: Any) -> FakeUser:
        if isinstance(value, bool) or not isinstance(value, int):
            raise web.HTTPBadRequest(text="user_id must be a number")
        for person in self.people:
            if person.user.id == value:
                return person.user
        raise web.HTTPNotFound(text=f"no user {value} in the playground")

    def _chat(self, value: Any, user: FakeUser | None = None) -> FakeChat:
        if isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise web.HTTPBadRequest(text="chat_id must be a number")
        chat = self.api.chats.get(value)
        if chat is None:
            raise web.HTTPNotFound(text=f"no chat {value}")
        if user is not None and chat.type == "private" and chat.id != user.id:
            raise web.HTTPForbidden(text="a private chat belongs to its own user")
        return chat

    @staticmethod
    async def _body(request: web.Request) -> JsonDict:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise web.HTTPBadRequest(text="the body must be JSON") from None
        if not isinstance(body, dict):
            raise web.HTTPBadRequest(text="the body must be a JSON object")
        return body

    # ----- the page ------------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def _favicon(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "favicon.svg")

    async def _people(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "people": [
                    {
                        "user_id": p.user.id,
                        "name": p.user.first_name,
                        "language_code": p.user.language_code,
                        "role": p.role,
                    }
                    for p in self.people
                ],
                "group": {"chat_id": self.group.id, "title": self.group.title},
                "forum": {
                    "chat_id": self.forum.id,
                    "title": self.forum.title,
                    "topics": self._topics(self.forum),
                },
                "miniapp": f"{request.scheme}://{request.host}{MINIAPP_PATH}"
                if self.miniapp
                else None,
                "bot": {
                    "id": self.api.bot.id,
                    "name": self.api.bot.first_name,
                    "names": BOT_NAMES,
                    "username": self.api.bot.username,
                },
            }
        )

    async def _open_miniapp(self, request: web.Request) -> web.Response:
        """The Mini App as Telegram opens it for a user in a campaign: signed launch data in
        the URL's fragment, the campaign also in the query (as a ``web_app`` button's URL)."""
        raw_user = request.query.get("user_id", "")
        user = self._user(int(raw_user) if raw_user.lstrip("-").isdigit() else None)
        chat = self._chat(request.query.get("chat_id"), user)
        raw_thread = request.query.get("message_thread_id", "")
        topic = chat.topics.get(int(raw_thread)) if raw_thread.isdigit() else None
        thread = topic.message_thread_id if topic is not None and chat.is_forum else None
        data = webapp.init_data(user, self.api.token, chat.id, thread_id=thread)
        code = webapp.start_param(chat.id, thread)
        # A header of our own: aiohttp's redirect would normalise the fragment's escapes.
        target = f"{MINIAPP_PATH}index.html?c={code}#{webapp.launch_fragment(data)}"
        return web.Response(status=302, headers={"Location": target})

    @staticmethod
    def _topics(chat: FakeChat) -> list[JsonDict]:
        """A forum's topics as its topic list shows them: General first, then the others in
        the order they were made; deleted ones are gone."""
        general: JsonDict = {
            "message_thread_id": None,
            "name": GENERAL_NAME,
            "closed": chat.general_closed,
        }
        return [general] + [
            {"message_thread_id": t.message_thread_id, "name": t.name, "closed": t.closed}
            for t in chat.topics.values()
            if not t.deleted
        ]

    @staticmethod
    def _shown(message: ChatMessage) -> JsonDict:
        data = message.data
        shown: JsonDict = {
            "message_id": message.message_id,
            "message_thread_id": message.topic_id,
            "from": data.get("from"),
            "text": message.text,
            "entities": data.get("entities") or [],
            "reply_markup": data.get("reply_markup"),
            "edited": message.edits > 0,
            "date": data.get("date"),
            "via_bot": (data.get("via_bot") or {}).get("username"),
        }
        if message.service is not None:
            shown["service"] = message.service
            created = data.get("forum_topic_created") or data.get("forum_topic_edited") or {}
            shown["topic_name"] = created.get("name")
        document = data.get("document")
        if isinstance(document, dict):
            # As Telegram shows a file: its name, its size, and a link that downloads it.
            shown["entities"] = data.get("caption_entities") or []
            shown["document"] = {
                "file_name": document.get("file_name") or "file",
                "file_size": document.get("file_size"),
                "url": f"/api/files/{document.get('file_id')}",
            }
        replied = data.get("reply_to_message")
        if isinstance(replied, dict):
            shown["reply_to"] = {
                "message_id": replied.get("message_id"),
                "from": replied.get("from"),
                "text": (replied.get("text") or "")[:200],
            }
        return shown

    async def _file(self, request: web.Request) -> web.Response:
        """A document's bytes, as the bot uploaded them, to open or download."""
        upload = self.api.file_bytes(request.match_info["file_id"])
        if upload is None:
            raise web.HTTPNotFound()
        name = upload.file_name.replace('"', "")
        return web.Response(
            body=upload.data,
            content_type=upload.mime_type or "application/octet-stream",
            headers={"Content-Disposition": f'inline; filename="{name}"'},
        )

    async def _messages(self, request: web.Request) -> web.Response:
        chat = self._chat(request.query.get("chat_id"))
        pinned = chat.pinned[-1] if chat.pinned else None
        answer: JsonDict = {
            "chat_id": chat.id,
            "version": self.api.version,
            "pinned": pinned,
            "held": self._held_in(chat.id),
            "messages": [self._shown(m) for m in chat.messages],
        }
        if chat.is_forum:
            answer["topics"] = self._topics(chat)
        return web.json_response(answer)

    async def _post_message(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user = self._user(body.get("user_id"))
        chat = self._chat(body.get("chat_id"), user)
        text = body.get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > TEXT_MAX:
            raise web.HTTPBadRequest(text=f"text must be 1 to {TEXT_MAX} characters")
        reply_to = body.get("reply_to")
        if reply_to is not None and (
            isinstance(reply_to, bool)
            or not isinstance(reply_to, int)
            or chat.message(reply_to) is None
        ):
            raise web.HTTPBadRequest(text="reply_to must be a message of this chat")
        thread_id = body.get("message_thread_id")
        wrong_thread = isinstance(thread_id, bool) or not isinstance(thread_id, int)
        if thread_id is not None and wrong_thread:
            raise web.HTTPBadRequest(text="message_thread_id must be a topic's number")
        try:
            sent = self.api.send_text(chat, user, text, reply_to=reply_to, thread_id=thread_id)
        except TopicClosedError as error:
            raise web.HTTPForbidden(text=str(error)) from None
        except LookupError as error:
            raise web.HTTPBadRequest(text=str(error)) from None
        return web.json_response({"message_id": sent.message_id})

    async def _close_topic(self, request: web.Request) -> web.Response:
        return await self._toggle_topic(request, closed=True)

    async def _reopen_topic(self, request: web.Request) -> web.Response:
        return await self._toggle_topic(request, closed=False)

    async def _toggle_topic(self, request: web.Request, *, closed: bool) -> web.Response:
        """A user closes or reopens a topic from its menu: an admin or the topic's creator
        (403 for anyone else), of a topic that is there (404) and not already so (409)."""
        body = await self._body(request)
        user = self._user(body.get("user_id"))
        chat = self._chat(body.get("chat_id"), user)
        thread_id = body.get("message_thread_id")  # null: General
        if thread_id is not None and (
            isinstance(thread_id, bool) or not isinstance(thread_id, int)
        ):
            raise web.HTTPBadRequest(text="message_thread_id must be a topic's number")
        toggle = self.api.close_topic if closed else self.api.reopen_topic
        try:
            service = toggle(chat, thread_id, user)
        except PermissionError as error:
            raise web.HTTPForbidden(text=str(error)) from None
        except LookupError as error:
            raise web.HTTPNotFound(text=str(error)) from None
        except ValueError as error:
            raise web.HTTPConflict(text=str(error)) from None
        return web.json_response({"message_id": service.message_id, "topics": self._topics(chat)})

    async def _press(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user = self._user(body.get("user_id"))
        chat = self._chat(body.get("chat_id"), user)
        message_id, data = body.get("message_id"), body.get("data")
        if isinstance(message_id, bool) or not isinstance(message_id, int):
            raise web.HTTPBadRequest(text="message_id must be a number")
        if not isinstance(data, str):
            raise web.HTTPBadRequest(text="data must be the button's callback_data")
        try:
            query = self.api.press(chat, user, message_id, data)
        except LookupError as error:
            raise web.HTTPNotFound(text=str(error)) from None
        record = self.api.callback_queries[query]
        with contextlib.suppress(AssertionError, TimeoutError):
            await self.api.wait_for(lambda: record.answer is not None, PRESS_WAIT)
        answer = record.answer
        shown = (
            None
            if answer is None
            else {"text": answer.text, "show_alert": answer.show_alert, "url": answer.url}
        )
        return web.json_response({"query_id": query, "answer": shown})

    async def _commands(self, request: web.Request) -> web.Response:
        raw = request.query.get("user_id", "")
        user = self._user(int(raw) if raw.isdigit() else None)
        language = (user.language_code or "")[:2]
        return web.json_response({"commands": self.api.menu(language)})

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        try:
            await response.write(f"data: {self.api.version}\n\n".encode())
            while True:
                changed = await self.api.changed(EVENT_KEEPALIVE)
                if changed:
                    await asyncio.sleep(0.05)  # a burst of calls becomes one redraw
                    await response.write(f"data: {self.api.version}\n\n".encode())
                else:
                    await response.write(b": keep-alive\n\n")
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        return response

    # ----- inline mode ---------------------------------------------------------------------------

    def inline_routes(self, app: web.Application) -> None:
        app.router.add_post("/api/inline", self._inline_query)
        app.router.add_post("/api/inline/choose", self._inline_choose)

    async def _inline_query(self, request: web.Request) -> web.Response:
        """``@bot query`` typed in a chat: the bot's answer, for the list above the input."""
        body = await self._body(request)
        user = self._user(body.get("user_id"))
        chat = self._chat(body.get("chat_id"), user)
        query = body.get("query")
        if not isinstance(query, str) or len(query) > INLINE_QUERY_MAX:
            raise web.HTTPBadRequest(text=f"query must be at most {INLINE_QUERY_MAX} characters")
        query_id = self.api.inline_query(user, query, chat=chat)
        with contextlib.suppress(AssertionError, TimeoutError):
            await self.api.wait_for_inline_answer(query_id, PRESS_WAIT)
        answer = self.api.inline_queries[query_id].answer
        results = [
            {
                "id": result.get("id"),
                "title": result.get("title", ""),
                "description": result.get("description", ""),
            }
            for result in (answer.results if answer is not None else [])
        ]
        return web.json_response({"query_id": query_id, "results": results})

    async def _inline_choose(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        user = self._user(body.get("user_id"))
        chat = self._chat(body.get("chat_id"), user)
        query_id, result_id = body.get("query_id"), body.get("result_id")
        record = self.api.inline_queries.get(str(query_id))
        if record is None or record.user_id != user.id or not isinstance(result_id, str):
            raise web.HTTPBadRequest(text="choose a result of your own inline query")
        try:
            posted = self.api.choose_inline_result(chat, user, str(query_id), result_id)
        except LookupError as error:
            raise web.HTTPNotFound(text=str(error)) from None
        return web.json_response({"message_id": posted.message_id})
