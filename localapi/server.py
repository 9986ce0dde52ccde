"""A local stand-in for the Telegram Bot API server, for end-to-end tests and benchmarks.

Why it exists: Telegram is unreachable from the test machine, and docs/product.md §5 asks for proofs
that only a server-side view can give — "hidden rolls never reach the group in any form" (every
outgoing call is recorded and can be inspected per chat), "429/5xx are retried and nothing is
sent twice" (faults are injected *before* a call is applied), "every callback query is
answered". The real bot process talks to it over HTTP exactly as it would to
``api.telegram.org`` (``{base}/bot{token}/{method}``, JSON or form bodies).

Every call is validated against the published method list in the vendored
``localapi/telegram-bot-api/api.json``
(unknown method → 404, unknown/missing/mistyped parameter → 400) plus the limits Telegram
enforces that bots trip over in practice: 4096 characters of text after entity parsing,
malformed HTML, 64-byte callback_data, 200-character callback answers, empty button labels,
invalid command names.

The simulated world (users, chats, the messages each chat shows with their current text and
keyboard) is in-memory; tests drive it with :meth:`FakeBotApi.send_text` and
:meth:`FakeBotApi.press` and observe it with the ``wait_for*`` helpers. Inline mode too:
:meth:`FakeBotApi.inline_query` types ``@bot …``, answerInlineQuery is validated and kept,
:meth:`FakeBotApi.choose_inline_result` posts a result's message "via" the bot with an
``inline_message_id``, by which the bot edits it and its buttons' presses arrive (with no
``message``, as Telegram sends them).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import copy
import functools
import itertools
import json
import math
import os
import random
import re
import socket
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import aiohttp
from aiohttp import web

from localapi.patience import patient

API_JSON_ENV = "TELEGRAM_BOT_API_JSON"
"""Environment variable that overrides where api.json is read from."""

# The Bot API schema (MIT, see LICENSE beside it), vendored so a bare clone tests itself.
DEFAULT_API_JSON = Path(__file__).resolve().parent / "telegram-bot-api" / "api.json"
DEFAULT_TOKEN = "123456:TEST"
GROUP_ANONYMOUS_BOT_ID = 1087968824
"""The user Telegram puts in ``from`` of messages an anonymous admin sends on behalf of a group."""

MAX_TEXT_LENGTH = 4096
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER_LENGTH = 200
MAX_INLINE_RESULTS = 50
SECRET_TOKEN_HEADER = "X-Telegram-Bot-Api-Secret-Token"

JsonDict = dict[str, Any]

# Parameters Telegram removed from the documentation but still accepts, and aiogram still sends
# when a bot uses them (e.g. ``reply_to_message_id``), so rejecting them would be unrealistic.
_LEGACY_PARAMETERS: dict[str, list[str]] = {
    "reply_to_message_id": ["Integer"],
    "allow_sending_without_reply": ["Boolean"],
    "disable_web_page_preview": ["Boolean"],
}
_DISCRIMINATOR = re.compile(r"(?:must be|always) [\"“]?([a-z_]+)")
_COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")
_COMMAND_IN_TEXT = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")
_NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
_QUERY_INVALID = "Bad Request: query is too old and response timeout expired or query ID is invalid"


class ApiError(Exception):
    """An error answer in Telegram's shape; raised anywhere while handling a call."""

    def __init__(self, status: int, description: str, parameters: JsonDict | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters

    def payload(self) -> JsonDict:
        body: JsonDict = {"ok": False, "error_code": self.status, "description": self.description}
        if self.parameters is not None:
            body["parameters"] = self.parameters
        return body


class PageError(ApiError):
    """An error answered not in Telegram's shape but with a front end's HTML page, as nginx
    in front of the Bot API answers when its upstream is gone: no JSON at all."""

    def page(self) -> str:
        title = f"{self.status} {self.description}"
        return (
            f"<html>\r\n<head><title>{title}</title></head>\r\n<body>\r\n"
            f"<center><h1>{title}</h1></center>\r\n<hr><center>nginx</center>\r\n"
            "</body>\r\n</html>\r\n"
        )


def bad_request(detail: str) -> ApiError:
    return ApiError(400, f"Bad Request: {detail}")


def free_port() -> int:
    """A port the OS just handed out; tests never use a fixed port (parallel runs collide)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def utf16_length(text: str) -> int:
    """Telegram measures entity offsets in UTF-16 code units, not code points."""
    return len(text.encode("utf-16-le")) // 2


# --------------------------------------------------------------------------------------------
# The schema: api.json as a validator
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldSpec:
    name: str
    types: tuple[str, ...]
    required: bool
    description: str


@dataclass(frozen=True)
class MethodSpec:
    name: str
    fields: tuple[FieldSpec, ...]
    returns: tuple[str, ...]

    @cached_property
    def by_name(self) -> dict[str, FieldSpec]:
        return {f.name: f for f in self.fields}


@dataclass(frozen=True)
class TypeSpec:
    name: str
    fields: tuple[FieldSpec, ...]
    subtypes: tuple[str, ...]

    @cached_property
    def by_name(self) -> dict[str, FieldSpec]:
        return {f.name: f for f in self.fields}


def _field_specs(raw: Iterable[Mapping[str, Any]]) -> tuple[FieldSpec, ...]:
    return tuple(
        FieldSpec(f["name"], tuple(f["types"]), bool(f["required"]), f.get("description", ""))
        for f in raw
    )


# The schema's scalar types: each takes the value and whether it came as a form's string
# (Telegram reads «42» as an Integer there), and returns it or raises ValueError.
def _integer(value: Any, from_string: bool) -> int:
    if from_string and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValueError(value)


def _float(value: Any, from_string: bool) -> float:
    if from_string:
        return float(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    raise ValueError(value)


def _boolean(value: Any, from_string: bool) -> bool:
    if from_string and value.lower() in ("true", "false", "1", "0"):
        value = value.lower() in ("true", "1")
    if not isinstance(value, bool):
        raise ValueError(value)
    return value


def _true(value: Any, from_string: bool) -> bool:
    if _boolean(value, from_string) is not True:
        raise ValueError(value)
    return True


def _string(value: Any, from_string: bool) -> str:
    if not isinstance(value, str):
        raise ValueError(value)
    return value


def _input_file(value: Any, from_string: bool) -> Any:
    return value  # uploads and file ids/URLs are not simulated; accept any shape


_SCALARS: dict[str, Callable[[Any, bool], Any]] = {
    "Integer": _integer,
    "Float": _float,
    "Boolean": _boolean,
    "True": _true,
    "String": _string,
    "InputFile": _input_file,
}


class BotApiSchema:
    """The Bot API as published in api.json, used to check calls and our own answers.

    Values from a form body are all strings (aiogram sends every call as a form, JSON-encoding
    objects and arrays), so top-level values are coerced the way Telegram does: ``"42"`` is a
    valid Integer, ``"true"`` a Boolean, a JSON string a valid object. Inside objects the JSON
    types must be right.
    """

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.version: str = document.get("version", "")
        self.methods: dict[str, MethodSpec] = {
            name: MethodSpec(name, _field_specs(m.get("fields", [])), tuple(m["returns"]))
            for name, m in document["methods"].items()
        }
        self.types: dict[str, TypeSpec] = {
            name: TypeSpec(name, _field_specs(t.get("fields", [])), tuple(t.get("subtypes", [])))
            for name, t in document["types"].items()
        }
        self._methods_lower = {name.lower(): spec for name, spec in self.methods.items()}
        self._discriminators = self._find_discriminators()

    @classmethod
    def load(cls, path: Path | None = None) -> BotApiSchema:
        """Parsed once per file and shared: the schema is read-only and api.json is large."""
        chosen = path or Path(os.environ.get(API_JSON_ENV) or DEFAULT_API_JSON)
        return _load_schema(chosen.resolve())

    def _find_discriminators(self) -> dict[str, tuple[str, str]]:
        # Subtypes of an abstract type (BotCommandScopeChat of BotCommandScope, ChatMemberOwner
        # of ChatMember) are told apart by a field documented as "must be chat" / 'always
        # "creator"'; without this, {"type": "chat"} would pass as BotCommandScopeDefault.
        found: dict[str, tuple[str, str]] = {}
        for spec in self.types.values():
            for sub in spec.subtypes:
                sub_spec = self.types.get(sub)
                if sub_spec is None:
                    continue
                for f in sub_spec.fields:
                    match = _DISCRIMINATOR.search(f.description)
                    if f.name in ("type", "status", "source") and match:
                        found[sub] = (f.name, match.group(1))
        return found

    def method(self, name: str) -> MethodSpec | None:
        """Telegram matches method names case-insensitively."""
        return self._methods_lower.get(name.lower())

    def validate_call(self, spec: MethodSpec, params: Mapping[str, Any], *, form: bool) -> JsonDict:
        """Check a call's parameters and return them with form strings coerced to JSON types."""
        clean: JsonDict = {}
        for name, value in params.items():
            field_spec = spec.by_name.get(name)
            types = field_spec.types if field_spec else _LEGACY_PARAMETERS.get(name)
            if types is None:
                raise bad_request(f'unknown parameter "{name}"')
            clean[name] = self._check(types, value, name, top_level=True, form=form)
        for f in spec.fields:
            if f.required and f.name not in clean:
                raise bad_request(f'parameter "{f.name}" is required')
        return clean

    def validate_result(self, spec: MethodSpec, result: Any) -> None:
        """Our own answers must parse as the documented return type, or aiogram would choke.

        Unknown fields are allowed here (clients must ignore fields newer than they know),
        while calls may not use fields the API does not define.
        """
        self._check(spec.returns, result, "result", top_level=False, form=False, answer=True)

    def _check(
        self,
        types: Sequence[str],
        value: Any,
        path: str,
        *,
        top_level: bool,
        form: bool,
        answer: bool = False,
    ) -> Any:
        first_error: ApiError | None = None
        for type_expr in types:
            try:
                return self._check_one(
                    type_expr, value, path, top_level=top_level, form=form, answer=answer
                )
            except ApiError as error:
                first_error = first_error or error
        assert first_error is not None
        if len(types) > 1 and not first_error.description.startswith("Bad Request: field"):
            raise first_error
        if len(types) > 1:
            raise bad_request(f'field "{path}" must be of type {" or ".join(types)}')
        raise first_error

    def _check_one(
        self, type_expr: str, value: Any, path: str, *, top_level: bool, form: bool, answer: bool
    ) -> Any:
        wrong = bad_request(f'field "{path}" must be of type {type_expr}')
        if type_expr.startswith("Array of "):
            item_type = type_expr.removeprefix("Array of ")
            value = (
                self._decode_json(value, path) if top_level and isinstance(value, str) else value
            )
            if not isinstance(value, list):
                raise wrong
            return [
                self._check(
                    [item_type], item, f"{path}[{i}]", top_level=False, form=False, answer=answer
                )
                for i, item in enumerate(value)
            ]
        scalar = _SCALARS.get(type_expr)
        if scalar is not None:
            try:
                return scalar(value, form and top_level and isinstance(value, str))
            except ValueError:
                raise wrong from None
        spec = self.types.get(type_expr)
        if spec is None:
            return value
        if top_level and isinstance(value, str):
            value = self._decode_json(value, path)
        if spec.subtypes:
            return self._check(
                spec.subtypes, value, path, top_level=False, form=False, answer=answer
            )
        if not spec.fields:
            return value  # opaque placeholder types (CallbackGame, InputFile-like)
        return self._check_object(type_expr, spec, value, path, answer=answer)

    def _check_object(
        self, type_expr: str, spec: TypeSpec, value: Any, path: str, *, answer: bool
    ) -> JsonDict:
        if not isinstance(value, dict):
            raise bad_request(f'field "{path}" must be an object of type {type_expr}')
        discriminator = self._discriminators.get(type_expr)
        if discriminator and value.get(discriminator[0]) != discriminator[1]:
            raise bad_request(f'field "{path}" is not a {type_expr}')
        checked: JsonDict = {}
        for key, item in value.items():
            f = spec.by_name.get(key)
            if f is None and answer:
                checked[key] = item
                continue
            if f is None:
                raise bad_request(f'field "{path}.{key}" is unknown for type {type_expr}')
            checked[key] = self._check(
                f.types, item, f"{path}.{key}", top_level=False, form=False, answer=answer
            )
        for f in spec.fields:
            if f.required and f.name not in value:
                raise bad_request(f'field "{path}.{f.name}" is required in {type_expr}')
        return checked

    @staticmethod
    def _decode_json(text: str, path: str) -> Any:
        try:
            return json.loads(text)
        except ValueError:
            raise bad_request(f'can\'t parse JSON in field "{path}"') from None

    def complete(self, type_name: str, given: Mapping[str, Any]) -> JsonDict:
        """An object of ``type_name`` with ``given`` fields and defaults for other required ones.

        Why: objects like ChatMemberAdministrator or ChatFullInfo have many required fields
        that tests do not care about; filling them from the schema keeps answers valid for
        aiogram's parser whatever the Bot API version.
        """
        spec = self.types[type_name]
        unknown = set(given) - set(spec.by_name)
        if unknown:
            raise KeyError(f"{type_name} has no fields {sorted(unknown)}")
        result: JsonDict = {}
        discriminator = self._discriminators.get(type_name)
        for f in spec.fields:
            if f.name in given:
                result[f.name] = given[f.name]
            elif discriminator and f.name == discriminator[0]:
                result[f.name] = discriminator[1]
            elif f.required:
                result[f.name] = self.default(f.types[0])
        return result

    def default(self, type_expr: str) -> Any:
        defaults: dict[str, Any] = {
            "Integer": 0,
            "Float": 0.0,
            "Boolean": False,
            "True": True,
            "String": "",
        }
        if type_expr in defaults:
            return defaults[type_expr]
        if type_expr.startswith("Array of "):
            return []
        spec = self.types[type_expr]
        if spec.subtypes:
            return self.default(spec.subtypes[0])
        return self.complete(type_expr, {})


@functools.cache
def _load_schema(path: Path) -> BotApiSchema:
    return BotApiSchema(json.loads(path.read_text(encoding="utf-8")))


# --------------------------------------------------------------------------------------------
# Formatted text: what Telegram counts and rejects
# --------------------------------------------------------------------------------------------

_HTML_TAGS: dict[str, str] = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_HTML_ENTITY = re.compile(r"&(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+);")
_HTML_ATTRIBUTE = re.compile(r"""([a-zA-Z-]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")
_MARKDOWN_V2_RESERVED = set("_*[]()~`>#+-=|{}.!")


def _entity_error(detail: str) -> ApiError:
    return bad_request(f"can't parse entities: {detail}")


def _unescape_html(raw: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        named = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
        if name in named:
            return named[name]
        code = int(name[2:], 16) if name.startswith("#x") else int(name[1:])
        return chr(code)

    return _HTML_ENTITY.sub(replace, raw)


def parse_html(source: str) -> tuple[str, list[JsonDict]]:
    """Plain text and entities of an HTML-formatted message, or Telegram's parse error.

    Mirrors Telegram's parser closely enough to catch the real bugs: unsupported tags, tags
    closed in the wrong order, unclosed tags, a bare ``<``. Offsets are UTF-16 code units.
    """
    text: list[str] = []
    entities: list[JsonDict] = []
    stack: list[tuple[str, int, JsonDict]] = []
    position = 0
    length = 0  # UTF-16 length of the text so far

    def byte_offset(index: int) -> int:
        return len(source[:index].encode("utf-8"))

    while position < len(source):
        lt = source.find("<", position)
        chunk = source[position : lt if lt != -1 else len(source)]
        if chunk:
            plain = _unescape_html(chunk)
            text.append(plain)
            length += utf16_length(plain)
        if lt == -1:
            break
        gt = source.find(">", lt)
        if gt == -1:
            raise _entity_error(f"Unclosed start tag at byte offset {byte_offset(lt)}")
        inside = source[lt + 1 : gt]
        if inside.startswith("/"):
            name = inside[1:].strip().lower()
            if not stack:
                raise _entity_error(f"Unexpected end tag at byte offset {byte_offset(lt)}")
            open_name, start, entity = stack.pop()
            if name != open_name:
                raise _entity_error(
                    f"Unmatched end tag at byte offset {byte_offset(lt)}, "
                    f'expected "</{open_name}>", found "</{name}>"'
                )
            entity["offset"] = start
            entity["length"] = length - start
            if entity["length"] > 0:
                entities.append(entity)
        else:
            match = re.match(r"([a-zA-Z][a-zA-Z0-9-]*)", inside)
            name = match.group(1).lower() if match else ""
            if name not in _HTML_TAGS:
                raise _entity_error(
                    f'Unsupported start tag "{name}" at byte offset {byte_offset(lt)}'
                )
            attributes = {
                m.group(1).lower(): _unescape_html(m.group(2) or m.group(3) or m.group(4) or "")
                for m in _HTML_ATTRIBUTE.finditer(inside[len(name) :])
            }
            entity = _html_entity(name, attributes, byte_offset(lt))
            if name == "code" and stack and stack[-1][0] == "pre" and "class" in attributes:
                stack[-1][2]["language"] = attributes["class"].removeprefix("language-")
            stack.append((name, length, entity))
        position = gt + 1
    if stack:
        raise _entity_error(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    entities.sort(key=lambda e: (e["offset"], -e["length"]))
    return "".join(text), entities


def _html_entity(name: str, attributes: Mapping[str, str], at: int) -> JsonDict:
    kind = _HTML_TAGS[name]
    entity: JsonDict = {"type": kind}
    if name == "span" and attributes.get("class") != "tg-spoiler":
        raise _entity_error(f'Unsupported start tag "span" at byte offset {at}')
    if kind == "text_link":
        if not attributes.get("href"):
            raise _entity_error(f"Can't find href attribute of the a tag at byte offset {at}")
        entity["url"] = attributes["href"]
    if kind == "custom_emoji":
        entity["custom_emoji_id"] = attributes.get("emoji-id", "")
    if kind == "blockquote" and "expandable" in attributes:
        entity["type"] = "expandable_blockquote"
    return entity


def parse_markdown_v2(source: str) -> str:
    """Plain text of a MarkdownV2 message, or Telegram's error for an unescaped reserved char.

    Only the checks that matter for a dice bot: reserved characters (``.`` ``-`` ``!`` ``(``
    in "7d10 (diff. 6)!") must be escaped, and formatting markers must be closed.
    """
    out: list[str] = []
    open_markers: list[str] = []
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\" and index + 1 < len(source):
            out.append(source[index + 1])
            index += 2
            continue
        marker = next(
            (m for m in ("```", "__", "||", "*", "_", "~", "`") if source.startswith(m, index)),
            None,
        )
        if marker:
            if open_markers and open_markers[-1] == marker:
                open_markers.pop()
            else:
                open_markers.append(marker)
            index += len(marker)
            continue
        if char == "[":
            close = source.find("](", index)
            end = source.find(")", close) if close != -1 else -1
            if close == -1 or end == -1:
                raise _entity_error("Can't find end of a text URL")
            out.append(parse_markdown_v2(source[index + 1 : close]))
            index = end + 1
            continue
        if char in _MARKDOWN_V2_RESERVED:
            offset = len(source[:index].encode("utf-8"))
            raise _entity_error(
                f"Character '{char}' is reserved and must be escaped with the preceding '\\' "
                f"(byte offset {offset})"
            )
        out.append(char)
        index += 1
    if open_markers:
        raise _entity_error(f"Can't find end of the entity starting with '{open_markers[-1]}'")
    return "".join(out)


def rendered_text(
    text: str, parse_mode: str | None, entities: list[JsonDict] | None
) -> tuple[str, list[JsonDict]]:
    """The text a user would see and its entities, after Telegram's parse_mode processing."""
    mode = (parse_mode or "").lower()
    if mode == "html":
        return parse_html(text)
    if mode == "markdownv2":
        return parse_markdown_v2(text), []
    if mode == "markdown":
        return re.sub(r"[*_`\[]", "", text), []
    if mode:
        raise bad_request(f"unsupported parse_mode {parse_mode!r}")
    return text, list(entities or [])


def check_message_text(text: str | None) -> None:
    if text is None or not text.strip():
        raise bad_request("message text is empty")
    if len(text) > MAX_TEXT_LENGTH:
        raise bad_request("message is too long")


def check_inline_keyboard(markup: JsonDict | None) -> None:
    """Limits Telegram enforces on inline buttons beyond their JSON types."""
    if not markup or "inline_keyboard" not in markup:
        return
    actions = set(_INLINE_BUTTON_ACTIONS)
    for row in markup["inline_keyboard"]:
        for button in row:
            if not button.get("text"):
                raise bad_request("BUTTON_TEXT_EMPTY")
            data = button.get("callback_data")
            if data is not None and not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES:
                raise bad_request("BUTTON_DATA_INVALID")
            if not actions & set(button):
                raise bad_request("text buttons are unallowed in the inline keyboard")


_INLINE_BUTTON_ACTIONS = (
    "url",
    "callback_data",
    "web_app",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "callback_game",
    "pay",
)


# --------------------------------------------------------------------------------------------
# The simulated world
# --------------------------------------------------------------------------------------------


# The parameters a file may be uploaded under directly (Telegram also takes attach://NAME).
_UPLOAD_PARAMETERS = frozenset({"document", "photo", "audio", "video", "voice", "animation"})
MAX_CAPTION_LENGTH = 1024

# Forum topics (docs of createForumTopic): the colours a topic's icon may have, the longest
# name Telegram keeps, and the errors it answers for a thread a message cannot go to.
FORUM_TOPIC_COLORS = (7322096, 16766590, 13338331, 9367192, 16749490, 16478047)
MAX_TOPIC_NAME_LENGTH = 128
GENERAL_THREAD_ID = 1
"""The General topic's id inside Telegram; the Bot API refuses it as a message_thread_id
("message thread not found"): a message for General goes without one."""
THREAD_NOT_FOUND = "message thread not found"
TOPIC_CLOSED = "TOPIC_CLOSED"
TOPIC_NOT_MODIFIED = "TOPIC_NOT_MODIFIED"
NOT_A_FORUM = "the chat is not a forum"
_TOPIC_SERVICE_KEYS = (
    "forum_topic_created",
    "forum_topic_edited",
    "forum_topic_closed",
    "forum_topic_reopened",
)


class TopicClosedError(PermissionError):
    """A user who may not write in a closed topic tried to (the client disables the input)."""


@dataclass
class ForumTopic:
    """A topic of a forum supergroup: its thread id is the id of the service message that
    created it, as Telegram numbers topics."""

    message_thread_id: int
    name: str
    icon_color: int
    creator_id: int
    closed: bool = False
    deleted: bool = False
    icon_custom_emoji_id: str | None = None

    def as_json(self) -> JsonDict:
        data: JsonDict = {
            "message_thread_id": self.message_thread_id,
            "name": self.name,
            "icon_color": self.icon_color,
        }
        if self.icon_custom_emoji_id:
            data["icon_custom_emoji_id"] = self.icon_custom_emoji_id
        return data


@dataclass(frozen=True)
class Upload:
    """A file the bot sent, as it sent it."""

    file_name: str
    data: bytes
    mime_type: str | None = None


@dataclass
class FakeUser:
    id: int
    first_name: str
    language_code: str | None = "ru"
    username: str | None = None
    last_name: str | None = None
    is_bot: bool = False

    def as_json(self) -> JsonDict:
        data: JsonDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass
class ChatMessage:
    """One message as the chat currently shows it (text and keyboard after any edits)."""

    data: JsonDict
    edits: int = 0

    @property
    def message_id(self) -> int:
        value: int = self.data["message_id"]
        return value

    @property
    def text(self) -> str:
        value: str = self.data.get("text") or self.data.get("caption") or ""
        return value

    @property
    def sender_id(self) -> int | None:
        sender = self.data.get("from")
        return None if sender is None else int(sender["id"])

    @property
    def reply_markup(self) -> JsonDict | None:
        markup: JsonDict | None = self.data.get("reply_markup")
        return markup

    @property
    def buttons(self) -> list[JsonDict]:
        """Inline buttons in reading order (rows, then left to right)."""
        markup = self.reply_markup or {}
        return [button for row in markup.get("inline_keyboard", []) for button in row]

    @property
    def button_texts(self) -> list[str]:
        return [button["text"] for button in self.buttons]

    @property
    def topic_id(self) -> int | None:
        """The forum topic the message is in; None in General and outside forums."""
        if not self.data.get("is_topic_message"):
            return None
        value: int = self.data["message_thread_id"]
        return value

    @property
    def service(self) -> str | None:
        """The kind of forum service message this is (``forum_topic_created``…), if one."""
        return next((key for key in _TOPIC_SERVICE_KEYS if key in self.data), None)


@dataclass
class FakeChat:
    id: int
    type: Literal["private", "group", "supergroup"]
    title: str | None = None
    username: str | None = None
    is_forum: bool = False
    private_user: FakeUser | None = None
    owner: FakeUser | None = None
    owner_anonymous: bool = False
    admins: dict[int, FakeUser] = field(default_factory=dict)
    anonymous_admins: set[int] = field(default_factory=set)
    members: dict[int, FakeUser] = field(default_factory=dict)
    bot_is_admin: bool = False
    messages: list[ChatMessage] = field(default_factory=list)
    deleted: list[ChatMessage] = field(default_factory=list)
    pinned: list[int] = field(default_factory=list)  # message ids, the newest pin last
    next_message_id: int = 1
    # Ids skipped after each message, in turn: a private chat's ids are the user's, shared
    # with their other private chats and basic groups, so the bot sees gaps there.
    id_gaps: tuple[int, ...] = ()
    # A forum's topics by thread id, in the order they were created (General is not one).
    topics: dict[int, ForumTopic] = field(default_factory=dict)
    general_closed: bool = False  # a forum's General topic, closed by an admin
    _stored: int = 0

    def advance(self) -> None:
        """The next message's id, after one was stored."""
        gap = self.id_gaps[self._stored % len(self.id_gaps)] if self.id_gaps else 0
        self._stored += 1
        self.next_message_id += 1 + gap

    def as_json(self) -> JsonDict:
        data: JsonDict = {"id": self.id, "type": self.type}
        if self.type == "private" and self.private_user is not None:
            data["first_name"] = self.private_user.first_name
            if self.private_user.username:
                data["username"] = self.private_user.username
        else:
            data["title"] = self.title or ""
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data

    def message(self, message_id: int) -> ChatMessage | None:
        return next((m for m in self.messages if m.message_id == message_id), None)

    @property
    def texts(self) -> list[str]:
        """What the chat shows, oldest first."""
        return [m.text for m in self.messages]

    def topic(self, name_or_id: str | int) -> ForumTopic:
        """A live topic of this forum by its name or thread id (LookupError if none)."""
        for topic in self.topics.values():
            if not topic.deleted and name_or_id in (topic.name, topic.message_thread_id):
                return topic
        raise LookupError(f"chat {self.id} has no topic {name_or_id!r}")

    def thread_messages(self, thread_id: int | None) -> list[ChatMessage]:
        """What one topic shows, oldest first; None: the General topic."""
        return [m for m in self.messages if m.topic_id == thread_id]

    def is_admin(self, user: FakeUser) -> bool:
        return (self.owner is not None and user.id == self.owner.id) or user.id in self.admins

    def is_anonymous(self, user: FakeUser) -> bool:
        if self.owner is not None and user.id == self.owner.id:
            return self.owner_anonymous
        return user.id in self.anonymous_admins


@dataclass
class ApiCall:
    """One HTTP call the bot made, as recorded for tests to inspect."""

    method: str
    params: JsonDict
    at: float
    status: int | None = None
    response: JsonDict | None = None
    applied: bool = False
    via_webhook_reply: bool = False
    page: bool = False  # answered with an HTML page, not the Bot API's JSON (a fault)

    @property
    def chat_id(self) -> int | str | None:
        value = self.params.get("chat_id")
        return value if isinstance(value, int | str) else None

    @property
    def ok(self) -> bool:
        return self.response is not None and bool(self.response.get("ok"))


@dataclass
class CallbackAnswer:
    query_id: str
    text: str | None
    show_alert: bool
    url: str | None


@dataclass
class CallbackQueryRecord:
    id: str
    chat_id: int
    message_id: int
    user_id: int
    data: str
    answer: CallbackAnswer | None = None


@dataclass
class InlineAnswer:
    """What the bot answered an inline query with (answerInlineQuery, as validated)."""

    results: list[JsonDict]
    cache_time: int | None
    is_personal: bool


@dataclass
class InlineQueryRecord:
    id: str
    user_id: int
    query: str
    answer: InlineAnswer | None = None


@dataclass
class _Fault:
    method: str | None
    remaining: int
    status: int
    retry_after: int
    delay: float = 0.0
    after: bool = False  # applied first, then answered with ``status``
    chat: int | None = None  # only calls to this chat (any if None)
    page: bool = False  # answered with a front end's HTML page, not Telegram's JSON
    share: float = 1.0  # the share of matching calls it takes (drawn by ``draw``)
    draw: Callable[[], float] | None = None

    def matches(self, method: str, params: JsonDict) -> bool:
        if self.remaining <= 0 or self.method not in (None, method):
            return False
        if self.chat is not None and str(params.get("chat_id")) != str(self.chat):
            return False
        return self.draw is None or self.draw() < self.share

    def error(self) -> ApiError:
        description = _FAULT_DESCRIPTIONS.get(self.status, "Error")
        kind = PageError if self.page else ApiError
        return kind(self.status, description)


_FAULT_DESCRIPTIONS = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

Handler = Callable[[JsonDict], Awaitable[Any]]


@dataclass(frozen=True)
class GroupShape:
    """What kind of group :meth:`FakeBotApi.add_group` makes: a supergroup (else an old basic
    group), a forum, an owner who posts anonymously, a public @username, a fixed chat id
    (None: the next free one)."""

    supergroup: bool = True
    is_forum: bool = False
    owner_anonymous: bool = False
    username: str | None = None
    chat_id: int | None = None


PLAIN_SUPERGROUP = GroupShape()


class FakeBotApi:
    """The fake server and the world it serves. Start with ``async with FakeBotApi() as api``.

    ``privacy_mode`` mirrors BotFather's default: in groups a bot that is not an admin only
    receives commands (``/r`` or ``/r@thisbot``), replies to its own messages and mentions.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = "storyteller_test_bot",
        bot_name: str = "Storyteller",
        privacy_mode: bool = True,
        schema: BotApiSchema | None = None,
    ) -> None:
        self.schema = schema or BotApiSchema.load()
        self.token = token
        self.privacy_mode = privacy_mode
        bot_id = int(token.split(":", 1)[0])
        self.bot = FakeUser(bot_id, bot_name, None, bot_username, is_bot=True)
        self.calls: list[ApiCall] = []
        self.internal_errors: list[str] = []
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.callback_queries: dict[str, CallbackQueryRecord] = {}
        self.inline_queries: dict[str, InlineQueryRecord] = {}
        # A message sent in inline mode, by its inline_message_id: (chat id, message id).
        self.inline_messages: dict[str, tuple[int, int]] = {}
        self._inline_ids = itertools.count(1)
        self.commands: dict[tuple[str, str], list[JsonDict]] = {}
        self.webhook: JsonDict = {"url": ""}
        self.webhook_responses: list[tuple[str, int]] = []
        self._updates: list[JsonDict] = []
        # Where assert_no_duplicate_sends starts reading: a test that plays in a world other
        # tests played in before it checks its own sends only.
        self.duplicates_from = 0
        self._next_update_id = 500_000_001
        self._allowed_updates: list[str] = []
        self._poll_generation = 0
        self._faults: list[_Fault] = []
        self._flood_limits: tuple[int, int] | None = None
        self._sends: collections.deque[tuple[float, Any]] = collections.deque()
        self._user_ids = itertools.count(1_000_001)
        self._group_ids = itertools.count(1)
        self._query_ids = itertools.count(7_000_000_001)
        self._changed = asyncio.Event()
        # Files the bot uploaded, by their part's name until a call takes them, then by the
        # file_id Telegram would give them (``file_bytes``): documents (sendDocument).
        self._uploads: dict[str, Upload] = {}
        self.files: dict[str, Upload] = {}
        self._file_ids = itertools.count(1)
        self.version = 0  # counts the changes: a watcher knows whether it missed one
        self._closing = False
        self._runner: web.AppRunner | None = None
        self._client: aiohttp.ClientSession | None = None
        self.port = 0
        self._handlers: dict[str, Handler] = {
            "getMe": self._get_me,
            "logOut": self._true,
            "close": self._true,
            "getUpdates": self._get_updates,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "sendMessage": self._send_message,
            "sendDocument": self._send_document,
            "getFile": self._get_file,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "editMessageCaption": self._edit_message_caption,
            "answerCallbackQuery": self._answer_callback_query,
            "answerInlineQuery": self._answer_inline_query,
            "deleteMessage": self._delete_message,
            "deleteMessages": self._delete_messages,
            "pinChatMessage": self._pin_chat_message,
            "unpinChatMessage": self._unpin_chat_message,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "sendChatAction": self._send_chat_action,
            "copyMessage": self._copy_message,
            "forwardMessage": self._forward_message,
            "copyMessages": self._copy_messages,
            "forwardMessages": self._forward_messages,
            "createForumTopic": self._create_forum_topic,
            "editForumTopic": self._edit_forum_topic,
            "closeForumTopic": self._close_forum_topic,
            "reopenForumTopic": self._reopen_forum_topic,
            "deleteForumTopic": self._delete_forum_topic,
            "closeGeneralForumTopic": self._close_general_forum_topic,
            "reopenGeneralForumTopic": self._reopen_general_forum_topic,
        }

    # ----- lifecycle -------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """What the bot gets as TELEGRAM_API_URL."""
        return f"http://127.0.0.1:{self.port}"

    def method_url(self, method: str, token: str | None = None) -> str:
        return f"{self.base_url}/bot{token or self.token}/{method}"

    async def start(
        self, *, port: int = 0, routes: Callable[[web.Application], None] | None = None
    ) -> None:
        """Listen on 127.0.0.1 (a free port unless ``port``); ``routes`` adds more to the same
        application (the playground's page and its JSON API beside the Bot API)."""
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._download)
        if routes is not None:
            routes(app)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        # Long polls must return at once, or shutting the server down waits for their timeout.
        self._closing = True
        self._notify()
        if self._client is not None:
            await self._client.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeBotApi:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def _notify(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    def touch(self) -> None:
        """A change the Bot API calls do not show (the playground's held replies): watchers
        of ``changed`` and ``version`` look again."""
        self._notify()

    async def changed(self, timeout: float) -> bool:  # noqa: ASYNC109
        """Wait for the next call or update (True), or ``timeout`` seconds (False)."""
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        return True

    # ----- HTTP ------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        name = request.match_info["method"]
        spec = self.schema.method(name)
        call = ApiCall(spec.name if spec else name, {}, time.monotonic())
        self.calls.append(call)
        delay = 0.0
        try:
            raw, form = await self._read_params(request)
            call.params = raw
            if request.match_info["token"] != self.token:
                raise ApiError(401, "Unauthorized")
            if spec is None:
                raise ApiError(404, "Not Found: method not found")
            delay = self._take_fault(spec.name, raw)
            call.params = self.schema.validate_call(spec, raw, form=form)
            self._check_flood(spec.name, call.params)
            result = await self._apply(spec, call.params)
            call.applied = True
            self._count_send(spec.name, call.params)
            self._take_after_fault(spec.name, call.params)
            body: JsonDict = {"ok": True, "result": result}
            status = 200
        except ApiError as error:
            body, status = error.payload(), error.status
            if isinstance(error, PageError):
                call.response, call.status = body, status
                call.page = True
                self._notify()
                return web.Response(text=error.page(), status=status, content_type="text/html")
        call.response, call.status = body, status
        self._notify()
        if delay:
            await asyncio.sleep(delay)
        return web.json_response(body, status=status)

    async def _apply(self, spec: MethodSpec, params: JsonDict) -> Any:
        handler = self._handlers.get(spec.name)
        result = await handler(params) if handler else self._generic_answer(spec, params)
        try:
            self.schema.validate_result(spec, result)
        except ApiError as error:
            # A bug in this fake, not in the bot: keep it visible to the fixture's teardown.
            self.internal_errors.append(f"{spec.name}: {error.description}")
            raise ApiError(500, "Internal Server Error") from error
        return result

    async def _read_params(self, request: web.Request) -> tuple[JsonDict, bool]:
        params: JsonDict = dict(request.query)
        content_type = request.content_type
        if request.can_read_body and content_type == "application/json":
            try:
                body = await request.json()
            except ValueError:
                raise bad_request("can't parse JSON request body") from None
            if isinstance(body, dict):
                params.update(body)
            return params, False
        if request.can_read_body and content_type.startswith("multipart/"):
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, aiohttp.BodyPartReader) or part.name is None:
                    continue
                if part.filename:
                    # Kept by its part's name: a parameter names it (``document``) or points
                    # at it (``attach://NAME``, as aiogram sends files), see ``_upload``.
                    self._uploads[part.name] = Upload(
                        part.filename, bytes(await part.read()), part.headers.get("Content-Type")
                    )
                    if part.name in _UPLOAD_PARAMETERS:
                        params[part.name] = {"uploaded_file": part.filename, "part": part.name}
                else:
                    params[part.name] = await part.text()
            return params, True
        if request.can_read_body:
            params.update(await request.post())
        return params, True

    # ----- faults ----------------------------------------------------------------------------

    def fail_next(
        self,
        method: str | None = None,
        *,
        count: int = 1,
        status: int = 429,
        retry_after: int = 1,
        chat: int | None = None,
        page: bool = False,
    ) -> None:
        """Make the next ``count`` calls of ``method`` (any method if None; to ``chat`` only,
        if given) fail before applying.

        429 answers carry ``parameters.retry_after`` like Telegram's flood control; 500/502/503/
        504 answer like a failing front end (``page``: with its HTML page, no JSON). The failed
        calls change nothing, so a retried call applies exactly once.
        """
        self._faults.append(_Fault(method, count, status, retry_after, chat=chat, page=page))

    def fail_after_applying(
        self, method: str | None = None, *, count: int = 1, status: int = 502, page: bool = False
    ) -> None:
        """Apply the next ``count`` calls of ``method``, then answer them with ``status`` all
        the same (``page``: with a front end's HTML page): a front end that lost Telegram's
        answer. A bot that sends again on that answer shows the message twice."""
        self._faults.append(_Fault(method, count, status, 0, after=True, page=page))

    def refuse(
        self, method: str | None = None, *, status: int = 502, chat: int | None = None
    ) -> None:
        """Fail every call of ``method`` (to ``chat`` only, if given) before applying it, until
        :meth:`clear_faults`: Telegram's front end down for as long as a test needs."""
        self._faults.append(_Fault(method, sys.maxsize, status, 1, chat=chat))

    def fail_with_pages(
        self,
        method: str | None = None,
        *,
        share: float = 0.1,
        status: int = 502,
        when: Literal["before", "after", "either"] = "either",
        seed: int = 0,
    ) -> None:
        """Until :meth:`clear_faults`, answer a ``share`` of the calls of ``method`` with an
        nginx HTML error page (``status``) instead of the Bot API's JSON: ``before`` applying
        them, ``after`` (a front end that lost Telegram's answer), or ``either`` (half each).
        The calls are drawn with a ``seed``ed generator, so a test fails the same way twice."""
        draw = random.Random(seed).random
        sides = {"before": (False,), "after": (True,), "either": (False, True)}[when]
        for after in sides:
            self._faults.append(
                _Fault(
                    method,
                    sys.maxsize,
                    status,
                    0,
                    after=after,
                    page=True,
                    share=share / len(sides),
                    draw=draw,
                )
            )

    def clear_faults(self) -> None:
        """Telegram works again: every fault still pending is forgotten."""
        self._faults.clear()

    def delay_next(self, method: str | None = None, *, seconds: float, count: int = 1) -> None:
        """Apply the next calls but answer them only after ``seconds``: a client timeout then
        retrying the call is how real bots send a message twice."""
        self._faults.append(_Fault(method, count, 200, 0, delay=seconds))

    def enforce_flood_limits(self, *, per_group_per_minute: int = 20, per_second: int = 30) -> None:
        """Answer 429 like Telegram once the bot sends faster than its limits (docs/product.md §5:
        about 20 messages a minute in one group, 30 a second overall). Off by default, so
        only tests of the bot's throttling pay for it."""
        self._flood_limits = (per_group_per_minute, per_second)

    def lift_flood_limits(self) -> None:
        """Back to no flood control (a test that turned it on, on a server others share)."""
        self._flood_limits = None

    @staticmethod
    def _is_send(method: str) -> bool:
        return method.startswith("send") and method != "sendChatAction"

    def _count_send(self, method: str, params: JsonDict) -> None:
        if self._is_send(method):
            self._sends.append((time.monotonic(), params.get("chat_id")))

    def _check_flood(self, method: str, params: JsonDict) -> None:
        if self._flood_limits is None or not self._is_send(method):
            return
        per_group, per_second = self._flood_limits
        now = time.monotonic()
        while self._sends and now - self._sends[0][0] >= 60:
            self._sends.popleft()
        if sum(1 for at, _ in self._sends if now - at < 1) >= per_second:
            raise ApiError(429, "Too Many Requests: retry after 1", {"retry_after": 1})
        chat_id = params.get("chat_id")
        in_group = [at for at, sent_to in self._sends if sent_to == chat_id]
        if isinstance(chat_id, int) and chat_id < 0 and len(in_group) >= per_group:
            wait = max(1, math.ceil(60 - (now - in_group[0])))
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})

    def _take_after_fault(self, method: str, params: JsonDict) -> None:
        for fault in self._faults:
            if fault.after and fault.matches(method, params):
                fault.remaining -= 1
                raise fault.error()

    def _take_fault(self, method: str, params: JsonDict) -> float:
        for fault in self._faults:
            if fault.after:
                continue
            if fault.matches(method, params):
                fault.remaining -= 1
                if fault.delay:
                    return fault.delay
                if fault.status == 429:
                    raise ApiError(
                        429,
                        f"Too Many Requests: retry after {fault.retry_after}",
                        {"retry_after": fault.retry_after},
                    )
                raise fault.error()
        return 0.0

    # ----- simulation: users, chats, updates -------------------------------------------------

    def add_user(
        self,
        first_name: str,
        *,
        language_code: str | None = "ru",
        username: str | None = None,
        user_id: int | None = None,
    ) -> FakeUser:
        user = FakeUser(user_id or next(self._user_ids), first_name, language_code, username)
        self.users[user.id] = user
        return user

    def add_group(
        self,
        title: str,
        *,
        owner: FakeUser,
        admins: Iterable[FakeUser] = (),
        anonymous_admins: Iterable[FakeUser] = (),
        members: Iterable[FakeUser] = (),
        bot_is_admin: bool = False,
        shape: GroupShape = PLAIN_SUPERGROUP,
    ) -> FakeChat:
        """A group the bot is in. Anonymous admins' messages are sent on behalf of the group."""
        number = next(self._group_ids)
        chat_id = shape.chat_id
        if chat_id is None:
            chat_id = (
                -(1_000_000_000_000 + number) if shape.supergroup else -(4_000_000_000 + number)
            )
        anonymous = list(anonymous_admins)
        chat = FakeChat(
            chat_id,
            "supergroup" if shape.supergroup else "group",
            title=title,
            username=shape.username,
            is_forum=shape.is_forum,
            owner=owner,
            owner_anonymous=shape.owner_anonymous,
            admins={u.id: u for u in [*admins, *anonymous]},
            anonymous_admins={u.id for u in anonymous},
            bot_is_admin=bot_is_admin,
        )
        if shape.is_forum:
            # Id 1 went to the group's creation, which General's thread is named after.
            chat.next_message_id = GENERAL_THREAD_ID + 1
        everyone = [owner, *chat.admins.values(), *members]
        chat.members = {u.id: u for u in everyone}
        self.chats[chat.id] = chat
        return chat

    def open_private_chat(self, user: FakeUser, *, id_gaps: tuple[int, ...] = ()) -> FakeChat:
        """The user has pressed Start: only now may the bot write to them (else 403).
        ``id_gaps``: ids skipped after each message in turn, as Telegram numbers a private
        chat with the user's ids, shared with their other chats (e.g. ``(0, 2, 5)``)."""
        chat = self.chats.get(user.id)
        if chat is None:
            chat = FakeChat(
                user.id, "private", private_user=user, members={user.id: user}, id_gaps=id_gaps
            )
            self.chats[user.id] = chat
        return chat

    @property
    def next_update_id(self) -> int:
        """The id the next update will get: the updates a step caused are those from the id
        read before it up to this one read after it."""
        return self._next_update_id

    def enqueue_update(self, kind: str, payload: JsonDict) -> JsonDict:
        update = {"update_id": self._next_update_id, kind: payload}
        self._next_update_id += 1
        self._updates.append(update)
        self._notify()
        return update

    def _store_message(self, chat: FakeChat, data: JsonDict) -> ChatMessage:
        message = ChatMessage(data)
        chat.messages.append(message)
        chat.advance()
        return message

    def send_text(
        self,
        chat: FakeChat,
        user: FakeUser,
        text: str,
        *,
        reply_to: ChatMessage | int | None = None,
        thread_id: int | None = None,
    ) -> ChatMessage:
        """A user writes in a chat; the bot gets an Update unless privacy mode hides it.

        In a forum, ``thread_id`` is the topic written in (None: General); a reply to a message
        in a topic lands in that topic without one, as Telegram files it. A topic that is not
        there raises LookupError, a closed one TopicClosedError unless the user is an admin
        (Telegram lets admins write in closed topics)."""
        data: JsonDict = {
            "message_id": chat.next_message_id,
            "date": int(time.time()),
            "chat": chat.as_json(),
        }
        if chat.type != "private" and chat.is_anonymous(user):
            data["from"] = FakeUser(
                GROUP_ANONYMOUS_BOT_ID, "Group", None, "GroupAnonymousBot", is_bot=True
            ).as_json()
            data["sender_chat"] = chat.as_json()
        else:
            data["from"] = user.as_json()
        replied: ChatMessage | None = None
        if reply_to is not None:
            replied_id = reply_to if isinstance(reply_to, int) else reply_to.message_id
            replied = chat.message(replied_id)
            if replied is None:
                raise LookupError(f"chat {chat.id} has no message {replied_id}")
        topic = self._user_topic(chat, user, thread_id, replied)
        if topic is not None:
            data["message_thread_id"] = topic.message_thread_id
            data["is_topic_message"] = True
        if replied is not None:
            data["reply_to_message"] = _without_reply(replied.data)
        data["text"] = text
        entities = self._command_entities(text)
        if entities:
            data["entities"] = entities
        message = self._store_message(chat, data)
        if self._bot_receives(chat, text, replied):
            self.enqueue_update("message", data)
        return message

    def _user_topic(
        self, chat: FakeChat, user: FakeUser, thread_id: int | None, replied: ChatMessage | None
    ) -> ForumTopic | None:
        if thread_id is not None and not chat.is_forum:
            raise LookupError(f"chat {chat.id} is not a forum: it has no topic {thread_id}")
        if thread_id is None and replied is not None:
            thread_id = replied.topic_id
        if thread_id is None:
            if chat.general_closed and not chat.is_admin(user):
                raise TopicClosedError("General is closed")
            return None
        topic = chat.topics.get(thread_id)
        if topic is None or topic.deleted:
            raise LookupError(f"chat {chat.id} has no topic {thread_id}")
        if topic.closed and not chat.is_admin(user):
            raise TopicClosedError(f"topic {topic.name!r} is closed")
        return topic

    # ----- simulation: forum topics ------------------------------------------------------------

    def create_topic(
        self,
        chat: FakeChat,
        name: str,
        *,
        by: FakeUser | None = None,
        icon_color: int = FORUM_TOPIC_COLORS[0],
        announce: bool = True,
    ) -> ForumTopic:
        """A topic is made in a forum by ``by`` (None: the bot, through createForumTopic): its
        ``forum_topic_created`` service message opens it and gives it its thread id. The bot
        gets that message as an Update if ``announce`` (a world set up before the bot started
        passes False)."""
        if not chat.is_forum:
            raise LookupError(f"chat {chat.id} is not a forum")
        creator = by or self.bot
        message = self._topic_service(
            chat,
            creator,
            chat.next_message_id,
            {"forum_topic_created": {"name": name, "icon_color": icon_color}},
            announce=announce and by is not None,
        )
        topic = ForumTopic(message.message_id, name, icon_color, creator.id)
        chat.topics[topic.message_thread_id] = topic
        return topic

    def close_topic(
        self, chat: FakeChat, topic: ForumTopic | int | None, by: FakeUser
    ) -> ChatMessage:
        """``by`` (an admin, or the topic's creator) closes a topic (None: General): only
        admins write there now, the bot's posts get TOPIC_CLOSED."""
        return self._toggle_topic(chat, topic, by, closed=True)

    def reopen_topic(
        self, chat: FakeChat, topic: ForumTopic | int | None, by: FakeUser
    ) -> ChatMessage:
        return self._toggle_topic(chat, topic, by, closed=False)

    def delete_topic(self, chat: FakeChat, topic: ForumTopic | int, by: FakeUser) -> None:
        """``by`` (an admin) deletes a topic with all its messages."""
        found = self._live_topic(chat, topic)
        if not chat.is_admin(by):
            raise PermissionError(f"{by.first_name} may not delete topics in chat {chat.id}")
        self._drop_topic(chat, found)

    def _live_topic(self, chat: FakeChat, topic: ForumTopic | int) -> ForumTopic:
        thread_id = topic if isinstance(topic, int) else topic.message_thread_id
        found = chat.topics.get(thread_id)
        if found is None or found.deleted:
            raise LookupError(f"chat {chat.id} has no topic {thread_id}")
        return found

    def _toggle_topic(
        self, chat: FakeChat, topic: ForumTopic | int | None, by: FakeUser, *, closed: bool
    ) -> ChatMessage:
        key = "forum_topic_closed" if closed else "forum_topic_reopened"
        if topic is None:
            if not chat.is_forum:
                raise LookupError(f"chat {chat.id} is not a forum")
            if not chat.is_admin(by):
                raise PermissionError(f"{by.first_name} may not close or reopen General")
            if chat.general_closed == closed:
                raise ValueError(f"General is already {'closed' if closed else 'open'}")
            chat.general_closed = closed
            return self._topic_service(chat, by, None, {key: {}}, announce=True)
        found = self._live_topic(chat, topic)
        if not chat.is_admin(by) and found.creator_id != by.id:
            raise PermissionError(f"{by.first_name} may not close or reopen {found.name!r}")
        if found.closed == closed:
            raise ValueError(f"topic {found.name!r} is already {'closed' if closed else 'open'}")
        found.closed = closed
        return self._topic_service(chat, by, found.message_thread_id, {key: {}}, announce=True)

    def _drop_topic(self, chat: FakeChat, topic: ForumTopic) -> None:
        topic.deleted = True
        gone = chat.thread_messages(topic.message_thread_id)
        chat.messages = [m for m in chat.messages if m not in gone]
        chat.deleted.extend(gone)
        chat.pinned = [p for p in chat.pinned if chat.message(p) is not None]
        self._notify()

    def _topic_service(
        self,
        chat: FakeChat,
        sender: FakeUser,
        thread_id: int | None,
        service: JsonDict,
        *,
        announce: bool,
    ) -> ChatMessage:
        data: JsonDict = {
            "message_id": chat.next_message_id,
            "from": sender.as_json(),
            "date": int(time.time()),
            "chat": chat.as_json(),
        }
        if thread_id is not None:  # else General's: no thread
            data["message_thread_id"] = thread_id
            data["is_topic_message"] = True
        data.update(service)
        message = self._store_message(chat, data)
        if announce and sender.id != self.bot.id:
            self.enqueue_update("message", data)
        else:
            self._notify()
        return message

    def _command_entities(self, text: str) -> list[JsonDict]:
        return [
            {
                "type": "bot_command",
                "offset": utf16_length(text[: match.start()]),
                "length": utf16_length(match.group()),
            }
            for match in _COMMAND_IN_TEXT.finditer(text)
        ]

    def _bot_receives(self, chat: FakeChat, text: str, replied: ChatMessage | None) -> bool:
        if chat.type == "private":
            return True
        command = _COMMAND_IN_TEXT.match(text)
        if command and "@" in command.group():
            return command.group().split("@", 1)[1].lower() == (self.bot.username or "").lower()
        if not self.privacy_mode or chat.bot_is_admin:
            return True
        mentioned = f"@{self.bot.username}".lower() in text.lower()
        return (
            bool(command) or mentioned or (replied is not None and replied.sender_id == self.bot.id)
        )

    def press(
        self,
        chat: FakeChat,
        user: FakeUser,
        message: ChatMessage | int,
        button: str,
        *,
        inaccessible: bool = False,
    ) -> str:
        """The user taps a button (matched by label, then by callback_data) on the message's
        CURRENT keyboard; returns the callback query id the bot must answer. ``inaccessible``:
        the message is one Telegram no longer shows the bot (an old one), so the press carries
        an ``InaccessibleMessage``: the chat and the id, date 0, not its topic."""
        message_id = message if isinstance(message, int) else message.message_id
        current = chat.message(message_id)
        if current is None:
            raise LookupError(f"chat {chat.id} has no message {message_id}")
        found = next((b for b in current.buttons if b["text"] == button), None) or next(
            (b for b in current.buttons if b.get("callback_data") == button), None
        )
        if found is None or "callback_data" not in found:
            raise LookupError(
                f"message {message_id} has no callback button {button!r}; "
                f"it shows {current.button_texts}"
            )
        query_id = str(next(self._query_ids))
        self.callback_queries[query_id] = CallbackQueryRecord(
            query_id, chat.id, message_id, user.id, found["callback_data"]
        )
        payload: JsonDict = {
            "id": query_id,
            "from": user.as_json(),  # Telegram reveals the real user even for anonymous admins
            "chat_instance": str(abs(chat.id) * 7 + 3),
            "data": found["callback_data"],
        }
        inline_id = self.inline_message_id(chat, message_id)
        if inline_id is not None:  # sent in inline mode: the bot gets no message, only its id
            payload["inline_message_id"] = inline_id
        elif inaccessible:
            payload["message"] = {"chat": chat.as_json(), "message_id": message_id, "date": 0}
        else:
            payload["message"] = copy.deepcopy(current.data)
        self.enqueue_update("callback_query", payload)
        return query_id

    # ----- simulation: inline mode -------------------------------------------------------------

    def inline_query(self, user: FakeUser, query: str, *, chat: FakeChat | None = None) -> str:
        """The user types ``@bot query`` in ``chat`` (any chat, the bot need not be in it);
        returns the inline query's id, which the bot answers with answerInlineQuery."""
        query_id = str(next(self._query_ids))
        self.inline_queries[query_id] = InlineQueryRecord(query_id, user.id, query)
        payload: JsonDict = {
            "id": query_id,
            "from": user.as_json(),
            "query": query,
            "offset": "",
        }
        if chat is not None:
            payload["chat_type"] = "sender" if chat.id == user.id else chat.type
        self.enqueue_update("inline_query", payload)
        return query_id

    async def wait_for_inline_answer(
        self,
        query_id: str,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> InlineAnswer:
        record = self.inline_queries[query_id]
        await self.wait_for(lambda: record.answer is not None, timeout)
        assert record.answer is not None
        return record.answer

    def choose_inline_result(
        self, chat: FakeChat, user: FakeUser, query_id: str, result_id: str
    ) -> ChatMessage:
        """The user taps a result of the bot's answer: its message appears in ``chat`` as the
        user's, "via" the bot, with its keyboard; the bot may edit it by the returned
        message's ``inline_message_id`` (:meth:`inline_message_id`)."""
        record = self.inline_queries[query_id]
        if record.answer is None:
            raise LookupError(f"inline query {query_id} has no answer yet")
        result = next((r for r in record.answer.results if r.get("id") == result_id), None)
        if result is None:
            shown = [r.get("id") for r in record.answer.results]
            raise LookupError(f"inline query {query_id} has no result {result_id!r}: {shown}")
        content = result.get("input_message_content") or {}
        if "message_text" not in content:
            raise LookupError(f"result {result_id!r} carries no text message")
        text, entities = rendered_text(
            content["message_text"], content.get("parse_mode"), content.get("entities")
        )
        data: JsonDict = {
            "message_id": chat.next_message_id,
            "from": user.as_json(),
            "date": int(time.time()),
            "chat": chat.as_json(),
            "via_bot": self.bot.as_json(),
            "text": text,
        }
        if entities:
            data["entities"] = entities
        markup = result.get("reply_markup")
        if markup is not None and markup.get("inline_keyboard"):
            data["reply_markup"] = markup
        message = self._store_message(chat, data)
        inline_id = f"AgAAA{next(self._inline_ids):07d}{abs(chat.id) % 100_000:05d}"
        self.inline_messages[inline_id] = (chat.id, message.message_id)
        if "chosen_inline_result" in self._allowed_updates:  # /setinlinefeedback
            self.enqueue_update(
                "chosen_inline_result",
                {
                    "result_id": result_id,
                    "from": user.as_json(),
                    "query": record.query,
                    "inline_message_id": inline_id,
                },
            )
        self._notify()
        return message

    def inline_message_id(self, chat: FakeChat, message_id: int) -> str | None:
        """The id the bot edits a message sent in inline mode by; None for any other."""
        for inline_id, place in self.inline_messages.items():
            if place == (chat.id, message_id):
                return inline_id
        return None

    def _inline_message(self, params: JsonDict) -> ChatMessage:
        place = self.inline_messages.get(str(params["inline_message_id"]))
        chat = self.chats.get(place[0]) if place is not None else None
        message = chat.message(place[1]) if chat is not None and place is not None else None
        if message is None:
            raise bad_request("MESSAGE_ID_INVALID")
        return message

    # ----- observation -----------------------------------------------------------------------

    async def wait_for(
        self,
        predicate: Callable[[], bool],
        timeout: float = 5.0,  # noqa: ASYNC109 - expiry raises an AssertionError that explains
    ) -> None:
        """Wait until ``predicate()`` holds; re-checked whenever a call or update happens.

        ``timeout`` is what an idle machine needs; the wait allows it times
        ``TEST_TIMEOUT_SCALE`` (:mod:`localapi.patience`)."""
        limit = patient(timeout)
        deadline = time.monotonic() + limit
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"condition not met within {limit:g} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.1))

    async def wait_for_message(
        self,
        chat: FakeChat,
        *,
        containing: str | None = None,
        after: ChatMessage | int | None = None,
        predicate: Callable[[ChatMessage], bool] | None = None,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> ChatMessage:
        """The first bot message in ``chat`` (newer than ``after``) whose current text contains
        ``containing`` and satisfies ``predicate``. On timeout the error shows the chat."""
        floor = after if isinstance(after, int) else (after.message_id if after else 0)

        def find() -> ChatMessage | None:
            for message in chat.messages:
                if message.message_id <= floor or message.sender_id != self.bot.id:
                    continue
                if containing is not None and containing not in message.text:
                    continue
                if predicate is None or predicate(message):
                    return message
            return None

        try:
            await self.wait_for(lambda: find() is not None, timeout)
        except AssertionError:
            shown = "\n".join(f"  #{m.message_id} {m.sender_id}: {m.text!r}" for m in chat.messages)
            raise AssertionError(
                f"no bot message containing {containing!r} in chat {chat.id} "
                f"within {patient(timeout):g} s; "
                f"it shows:\n{shown}"
            ) from None
        found = find()
        assert found is not None
        return found

    async def wait_for_callback_answer(
        self,
        query_id: str,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> CallbackAnswer:
        record = self.callback_queries[query_id]
        await self.wait_for(lambda: record.answer is not None, timeout)
        assert record.answer is not None
        return record.answer

    def calls_to(self, method: str) -> list[ApiCall]:
        return [c for c in self.calls if c.method == method]

    def calls_for_chat(self, chat: FakeChat | int) -> list[ApiCall]:
        """Every call that named this chat, applied or not: for "nothing leaked" proofs."""
        chat_id = chat if isinstance(chat, int) else chat.id
        names = {chat_id, str(chat_id)}
        if isinstance(chat, FakeChat) and chat.username:
            names.add(f"@{chat.username}")
        return [c for c in self.calls if c.chat_id in names]

    def unanswered_callback_queries(self) -> list[CallbackQueryRecord]:
        return [q for q in self.callback_queries.values() if q.answer is None]

    def assert_no_duplicate_sends(self, window: float = 5.0) -> None:
        """No two applied sendMessage calls with the same chat, text and reply target within
        ``window`` s.

        Why: a retry after a 5xx, 429 or timeout must not deliver the roll twice (§5). Two
        equal texts answering two commands (two rolls of a player that came out alike: about
        one pair in 1,400 for 5d10, whose dice are shown sorted) reply to two messages.
        """
        seen: dict[tuple[str, str, str], float] = {}
        for call in self.calls[self.duplicates_from :]:
            if call.method != "sendMessage" or not call.applied:
                continue
            reply = call.params.get("reply_parameters")
            target = reply.get("message_id") if isinstance(reply, dict) else None
            target = target if target is not None else call.params.get("reply_to_message_id")
            key = (str(call.params.get("chat_id")), str(call.params.get("text")), str(target))
            if key in seen and call.at - seen[key] <= window:
                raise AssertionError(f"sent twice to chat {key[0]}: {key[1]!r}")
            seen[key] = call.at

    # ----- webhook delivery ------------------------------------------------------------------

    async def post_update(
        self,
        update: JsonDict,
        *,
        url: str | None = None,
        secret_token: str | None = None,
        use_webhook_secret: bool = True,
    ) -> int:
        """POST one Update to a webhook like Telegram does; returns the HTTP status.

        The secret header is the one given to setWebhook unless ``secret_token`` overrides it
        (pass a wrong one to test rejection, or ``use_webhook_secret=False`` to omit it). A
        method call in the response body is applied as Telegram does ("reply to webhook").
        """
        target = url or self.webhook.get("url")
        if not target:
            raise LookupError("no webhook URL set and none given")
        headers = {}
        secret = secret_token
        if secret is None and use_webhook_secret:
            secret = self.webhook.get("secret_token")
        if secret is not None:
            headers[SECRET_TOKEN_HEADER] = secret
        if self._client is None:
            self._client = aiohttp.ClientSession()
        async with self._client.post(target, json=update, headers=headers) as response:
            status = response.status
            body = await response.read()
        self.webhook_responses.append((target, status))
        if 200 <= status < 300 and body:
            await self._apply_webhook_reply(body)
        return status

    def take_updates(self) -> list[JsonDict]:
        """The queued updates, taken off the queue: the test delivers them itself, say the
        same update to two webhook replicas at once, as Telegram's retry may."""
        taken, self._updates = self._updates, []
        return taken

    async def push_updates_to_webhook(
        self,
        urls: Sequence[str] | None = None,
        *,
        concurrency: int = 1,
        timeout: float = 5.0,  # noqa: ASYNC109 - per delivery, like Telegram's webhook timeout
    ) -> int:
        """Deliver every queued update, round-robin over ``urls`` (default: the set webhook).

        ``concurrency`` > 1 sends several at once, as Telegram does up to max_connections —
        how replicas behind one URL see updates of one chat arrive out of order. Updates not
        answered with 2xx (or timed out, or refused) stay queued, as Telegram keeps retrying.
        Returns how many were delivered.
        """
        targets = list(urls or [self.webhook.get("url", "")])
        pending, self._updates = self._updates, []
        gate = asyncio.Semaphore(concurrency)

        async def deliver(index: int, update: JsonDict) -> bool:
            async with gate:
                try:
                    status = await asyncio.wait_for(
                        self.post_update(update, url=targets[index % len(targets)]), timeout
                    )
                except (TimeoutError, aiohttp.ClientError):
                    status = 0
            if not 200 <= status < 300:
                self._updates.append(update)
                return False
            return True

        results = await asyncio.gather(*(deliver(i, u) for i, u in enumerate(pending)))
        self._updates.sort(key=lambda u: int(u["update_id"]))
        return sum(results)

    async def _apply_webhook_reply(self, body: bytes) -> None:
        try:
            payload = json.loads(body)
        except ValueError:
            return
        if not isinstance(payload, dict) or "method" not in payload:
            return
        raw = {k: v for k, v in payload.items() if k != "method"}
        spec = self.schema.method(str(payload["method"]))
        call = ApiCall(spec.name if spec else str(payload["method"]), raw, time.monotonic())
        call.via_webhook_reply = True
        self.calls.append(call)
        try:
            if spec is None:
                raise ApiError(404, "Not Found: method not found")
            call.params = self.schema.validate_call(spec, raw, form=False)
            call.response = {"ok": True, "result": await self._apply(spec, call.params)}
            call.status, call.applied = 200, True
        except ApiError as error:
            call.response, call.status = error.payload(), error.status
        self._notify()

    # ----- method implementations ------------------------------------------------------------

    async def _true(self, params: JsonDict) -> bool:
        return True

    async def _get_me(self, params: JsonDict) -> JsonDict:
        return self.schema.complete(
            "User",
            {
                **self.bot.as_json(),
                "can_join_groups": True,
                "can_read_all_group_messages": not self.privacy_mode,
                "supports_inline_queries": False,
            },
        )

    async def _get_updates(self, params: JsonDict) -> list[JsonDict]:
        if self.webhook.get("url"):
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use "
                "deleteWebhook to delete the webhook first",
            )
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # wakes an older long poll so it can answer 409
        offset = int(params.get("offset", 0))
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        if "allowed_updates" in params:
            self._allowed_updates = list(params["allowed_updates"])
        limit = min(max(int(params.get("limit", 100)), 1), 100)
        deadline = time.monotonic() + min(int(params.get("timeout", 0)), 50)
        while True:
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; make sure that only one "
                    "bot instance is running",
                )
            ready = [u for u in self._updates if self._is_allowed(u)][:limit]
            remaining = deadline - time.monotonic()
            if ready or remaining <= 0 or self._closing:
                return copy.deepcopy(ready)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    def _is_allowed(self, update: JsonDict) -> bool:
        kind = next(k for k in update if k != "update_id")
        if self._allowed_updates:
            return kind in self._allowed_updates
        return kind not in ("chat_member", "message_reaction", "message_reaction_count")

    async def _set_webhook(self, params: JsonDict) -> bool:
        url = params["url"]
        if url and not url.startswith(("http://", "https://")):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if params.get("drop_pending_updates"):
            self._updates = []
        self.webhook = {k: v for k, v in params.items() if k != "drop_pending_updates"}
        if "allowed_updates" in params:
            self._allowed_updates = list(params["allowed_updates"])
        return True

    async def _delete_webhook(self, params: JsonDict) -> bool:
        if params.get("drop_pending_updates"):
            self._updates = []
        self.webhook = {"url": ""}
        return True

    async def _get_webhook_info(self, params: JsonDict) -> JsonDict:
        info: JsonDict = {
            "url": self.webhook.get("url", ""),
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        for key in ("max_connections", "allowed_updates", "ip_address"):
            if key in self.webhook:
                info[key] = self.webhook[key]
        return info

    def _chat_for(self, chat_id: Any) -> FakeChat:
        chat: FakeChat | None = None
        if isinstance(chat_id, int):
            chat = self.chats.get(chat_id)
            if chat is None and chat_id in self.users:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        elif isinstance(chat_id, str) and chat_id.startswith("@"):
            chat = next((c for c in self.chats.values() if c.username == chat_id[1:]), None)
        if chat is None:
            raise bad_request("chat not found")
        return chat

    def _bot_message(self, chat: FakeChat, message_id: Any, action: str) -> ChatMessage:
        message = chat.message(message_id) if isinstance(message_id, int) else None
        if message is None:
            raise bad_request(f"message to {action} not found")
        if message.sender_id != self.bot.id:
            raise bad_request(f"message can't be {action}ed")
        return message

    async def _send_message(self, params: JsonDict) -> JsonDict:
        chat = self._chat_for(params["chat_id"])
        text, entities = rendered_text(
            params["text"], params.get("parse_mode"), params.get("entities")
        )
        check_message_text(text)
        markup = params.get("reply_markup")
        check_inline_keyboard(markup)
        data: JsonDict = {
            "message_id": chat.next_message_id,
            "from": self.bot.as_json(),
            "date": int(time.time()),
            "chat": chat.as_json(),
        }
        reply_id = params.get("reply_to_message_id")
        allow_without = bool(params.get("allow_sending_without_reply"))
        if "reply_parameters" in params:
            reply_id = params["reply_parameters"]["message_id"]
            allow_without = bool(params["reply_parameters"].get("allow_sending_without_reply"))
        replied: ChatMessage | None = None
        if reply_id is not None:
            replied = chat.message(reply_id)
            if replied is not None:
                data["reply_to_message"] = _without_reply(replied.data)
            elif not allow_without:
                raise bad_request("message to be replied not found")
        self._file_in_thread(data, chat, params, replied)
        data["text"] = text
        if entities:
            data["entities"] = entities
        if markup is not None and "inline_keyboard" in markup:
            data["reply_markup"] = markup
        return copy.deepcopy(self._store_message(chat, data).data)

    def _upload(self, value: Any) -> tuple[str, Upload]:
        """The file a ``document`` parameter names: a part of this call's form (by its name or
        ``attach://NAME``), or a file_id sent before; its new or known file_id."""
        part = None
        if isinstance(value, dict) and isinstance(value.get("part"), str):
            part = value["part"]
        elif isinstance(value, str) and value.startswith("attach://"):
            part = value.removeprefix("attach://")
        if part is not None:
            upload = self._uploads.pop(part, None)
            if upload is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
            if not upload.data:
                raise bad_request("file must be non-empty")
            file_id = f"BQACAgIAAxkDAAI{next(self._file_ids):08d}"
            self.files[file_id] = upload
            return file_id, upload
        if isinstance(value, str) and value in self.files:
            return value, self.files[value]
        raise bad_request("wrong file identifier/HTTP URL specified")

    def file_bytes(self, file_id: str) -> Upload | None:
        """A document's file as the bot uploaded it (the playground serves it to the page)."""
        return self.files.get(file_id)

    async def _send_document(self, params: JsonDict) -> JsonDict:
        chat = self._chat_for(params["chat_id"])
        file_id, upload = self._upload(params["document"])
        markup = params.get("reply_markup")
        check_inline_keyboard(markup)
        data: JsonDict = {
            "message_id": chat.next_message_id,
            "from": self.bot.as_json(),
            "date": int(time.time()),
            "chat": chat.as_json(),
            "document": {
                "file_id": file_id,
                "file_unique_id": file_id[-12:],
                "file_name": upload.file_name,
                "mime_type": upload.mime_type or "application/octet-stream",
                "file_size": len(upload.data),
            },
        }
        caption = params.get("caption")
        if caption:
            text, entities = rendered_text(
                caption, params.get("parse_mode"), params.get("caption_entities")
            )
            if len(text) > MAX_CAPTION_LENGTH:
                raise bad_request("message caption is too long")
            data["caption"] = text
            if entities:
                data["caption_entities"] = entities
        reply = params.get("reply_parameters")
        replied: ChatMessage | None = None
        if isinstance(reply, dict):
            replied = chat.message(reply.get("message_id", 0))
            if replied is not None:
                data["reply_to_message"] = _without_reply(replied.data)
            elif not reply.get("allow_sending_without_reply"):
                raise bad_request("message to be replied not found")
        self._file_in_thread(data, chat, params, replied)
        if markup is not None and "inline_keyboard" in markup:
            data["reply_markup"] = markup
        return copy.deepcopy(self._store_message(chat, data).data)

    async def _get_file(self, params: JsonDict) -> JsonDict:
        file_id = str(params["file_id"])
        upload = self.files.get(file_id)
        if upload is None:
            raise bad_request("invalid file_id")
        return {
            "file_id": file_id,
            "file_unique_id": file_id[-12:],
            "file_size": len(upload.data),
            "file_path": f"documents/{file_id}",
        }

    async def _download(self, request: web.Request) -> web.Response:
        """``/file/bot<token>/<file_path>``, as Telegram serves a file getFile named."""
        if request.match_info["token"] != self.token:
            raise web.HTTPUnauthorized()
        upload = self.files.get(request.match_info["path"].removeprefix("documents/"))
        if upload is None:
            raise web.HTTPNotFound()
        return web.Response(
            body=upload.data, content_type=upload.mime_type or "application/octet-stream"
        )

    async def _edit_message_text(self, params: JsonDict) -> JsonDict | bool:
        inline = "inline_message_id" in params
        if inline:
            message = self._inline_message(params)
        else:
            chat = self._chat_for(params.get("chat_id"))
            message = self._bot_message(chat, params.get("message_id"), "edit")
        if "text" not in params:
            raise bad_request("message text is empty")
        text, entities = rendered_text(
            params["text"], params.get("parse_mode"), params.get("entities")
        )
        check_message_text(text)
        markup = params.get("reply_markup")
        check_inline_keyboard(markup)
        # Telegram drops the inline keyboard when an edit does not repeat it.
        edited = self._apply_edit(message, text, entities or None, markup)
        return True if inline else edited  # an inline message's edit answers True

    async def _edit_message_reply_markup(self, params: JsonDict) -> JsonDict | bool:
        inline = "inline_message_id" in params
        if inline:
            message = self._inline_message(params)
        else:
            chat = self._chat_for(params.get("chat_id"))
            message = self._bot_message(chat, params.get("message_id"), "edit")
        markup = params.get("reply_markup")
        check_inline_keyboard(markup)
        edited = self._apply_edit(
            message, message.data.get("text"), message.data.get("entities"), markup
        )
        return True if inline else edited

    async def _edit_message_caption(self, params: JsonDict) -> JsonDict | bool:
        """Only text messages are simulated: a caption edit of one says it has none, as
        Telegram does (the bot uses that to tell its own messages, bot/sent.py)."""
        if "inline_message_id" in params:
            self._inline_message(params)
            raise bad_request("there is no caption in the message to edit")
        chat = self._chat_for(params.get("chat_id"))
        self._bot_message(chat, params.get("message_id"), "edit")
        raise bad_request("there is no caption in the message to edit")

    def _apply_edit(
        self,
        message: ChatMessage,
        text: str | None,
        entities: list[JsonDict] | None,
        markup: JsonDict | None,
    ) -> JsonDict:
        if not markup or not markup.get("inline_keyboard"):
            markup = None
        same = (
            text == message.data.get("text")
            and (entities or None) == message.data.get("entities")
            and markup == message.data.get("reply_markup")
        )
        if same:
            raise bad_request(_NOT_MODIFIED.removeprefix("Bad Request: "))
        for key, value in (("text", text), ("entities", entities), ("reply_markup", markup)):
            if value is None:
                message.data.pop(key, None)
            else:
                message.data[key] = value
        message.data["edit_date"] = int(time.time())
        message.edits += 1
        return copy.deepcopy(message.data)

    async def _answer_callback_query(self, params: JsonDict) -> bool:
        text = params.get("text")
        if text is not None and len(text) > MAX_CALLBACK_ANSWER_LENGTH:
            raise bad_request("MESSAGE_TOO_LONG")
        record = self.callback_queries.get(params["callback_query_id"])
        if record is None or record.answer is not None:
            raise bad_request(_QUERY_INVALID.removeprefix("Bad Request: "))
        record.answer = CallbackAnswer(
            record.id, text, bool(params.get("show_alert", False)), params.get("url")
        )
        return True

    async def _answer_inline_query(self, params: JsonDict) -> bool:
        """Checked as Telegram does beyond the schema: the query is known and unanswered, at
        most 50 results with unique ids of 1–64 bytes, each message's text and keyboard
        valid; then kept for :meth:`choose_inline_result`."""
        record = self.inline_queries.get(str(params["inline_query_id"]))
        if record is None or record.answer is not None:
            raise bad_request(_QUERY_INVALID.removeprefix("Bad Request: "))
        results: list[JsonDict] = params["results"]
        if len(results) > MAX_INLINE_RESULTS:
            raise bad_request("RESULTS_TOO_MUCH")
        ids = [str(r.get("id", "")) for r in results]
        if len(set(ids)) != len(ids):
            raise bad_request("RESULT_ID_DUPLICATE")
        for result in results:
            if not 1 <= len(str(result.get("id", "")).encode()) <= MAX_CALLBACK_DATA_BYTES:
                raise bad_request("RESULT_ID_INVALID")
            content = result.get("input_message_content") or {}
            if "message_text" in content:
                text, _ = rendered_text(
                    content["message_text"], content.get("parse_mode"), content.get("entities")
                )
                check_message_text(text)
            check_inline_keyboard(result.get("reply_markup"))
        record.answer = InlineAnswer(
            results, params.get("cache_time"), bool(params.get("is_personal", False))
        )
        return True

    async def _delete_message(self, params: JsonDict) -> bool:
        chat = self._chat_for(params["chat_id"])
        self._delete(chat, params["message_id"])
        return True

    async def _delete_messages(self, params: JsonDict) -> bool:
        chat = self._chat_for(params["chat_id"])
        for message_id in params["message_ids"]:
            with contextlib.suppress(ApiError):
                self._delete(chat, message_id)
        return True

    def _delete(self, chat: FakeChat, message_id: int) -> None:
        message = chat.message(message_id)
        if message is None:
            raise bad_request("message to delete not found")
        own = message.sender_id == self.bot.id
        if not own and chat.type != "private" and not chat.bot_is_admin:
            raise bad_request("message can't be deleted")
        chat.messages.remove(message)
        chat.deleted.append(message)
        if message_id in chat.pinned:
            chat.pinned.remove(message_id)

    def _pin_rights(self, chat: FakeChat) -> None:
        if chat.type != "private" and not chat.bot_is_admin:
            raise bad_request("not enough rights to manage pinned messages in the chat")

    async def _pin_chat_message(self, params: JsonDict) -> bool:
        chat = self._chat_for(params["chat_id"])
        self._pin_rights(chat)
        message_id = params["message_id"]
        if chat.message(message_id) is None:
            raise bad_request("message to pin not found")
        if message_id in chat.pinned:
            chat.pinned.remove(message_id)
        chat.pinned.append(message_id)
        return True

    async def _unpin_chat_message(self, params: JsonDict) -> bool:
        chat = self._chat_for(params["chat_id"])
        self._pin_rights(chat)
        message_id = params.get("message_id")
        if message_id is None:
            if chat.pinned:
                chat.pinned.pop()
            return True
        if message_id not in chat.pinned:
            raise bad_request("message to unpin not found")
        chat.pinned.remove(message_id)
        return True

    @staticmethod
    def _scope_key(params: JsonDict) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), params.get("language_code", "")

    async def _set_my_commands(self, params: JsonDict) -> bool:
        commands = params["commands"]
        if len(commands) > 100:
            raise bad_request("too many commands")
        for command in commands:
            if not _COMMAND_NAME.fullmatch(command["command"]):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(command["description"]) <= 256:
                raise bad_request("command description must be 1-256 characters")
        language = params.get("language_code", "")
        if language and not re.fullmatch(r"[a-z]{2}", language):
            raise bad_request("invalid language code specified")
        self.commands[self._scope_key(params)] = commands
        return True

    async def _get_my_commands(self, params: JsonDict) -> list[JsonDict]:
        return copy.deepcopy(self.commands.get(self._scope_key(params), []))

    async def _delete_my_commands(self, params: JsonDict) -> bool:
        self.commands.pop(self._scope_key(params), None)
        return True

    def commands_for(self, scope: JsonDict | None = None, language_code: str = "") -> list[str]:
        """Command names registered for a scope and language, as a test wants to read them."""
        params: JsonDict = {"language_code": language_code}
        if scope is not None:
            params["scope"] = scope
        return [c["command"] for c in self.commands.get(self._scope_key(params), [])]

    def menu(self, language_code: str = "") -> list[JsonDict]:
        """The default-scope command menu a client in ``language_code`` shows (Telegram falls
        back to the menu set without a language)."""
        for language in (language_code, ""):
            found = self.commands.get(self._scope_key({"language_code": language}))
            if found:
                return copy.deepcopy(found)
        return []

    async def _get_chat(self, params: JsonDict) -> JsonDict:
        chat = self._chat_for(params["chat_id"])
        return self.schema.complete("ChatFullInfo", {**chat.as_json(), "max_reaction_count": 11})

    def _member(self, chat: FakeChat, user: FakeUser) -> JsonDict:
        if chat.owner is not None and user.id == chat.owner.id:
            return self.schema.complete(
                "ChatMemberOwner",
                {"user": user.as_json(), "is_anonymous": chat.owner_anonymous},
            )
        if user.id in chat.admins:
            rights = {
                name: True
                for name in (
                    "can_manage_chat",
                    "can_delete_messages",
                    "can_restrict_members",
                    "can_invite_users",
                    "can_pin_messages",
                )
            }
            member = self.schema.complete(
                "ChatMemberAdministrator",
                {
                    "user": user.as_json(),
                    "is_anonymous": user.id in chat.anonymous_admins,
                    **rights,
                },
            )
            # aiogram 3.31 requires this field although api.json does not define it.
            return {**member, "can_send_welcome_messages": False}
        if user.id in chat.members or user.id == self.bot.id:
            return self.schema.complete("ChatMemberMember", {"user": user.as_json()})
        return self.schema.complete("ChatMemberLeft", {"user": user.as_json()})

    async def _get_chat_member(self, params: JsonDict) -> JsonDict:
        chat = self._chat_for(params["chat_id"])
        user = self.users.get(params["user_id"])
        if params["user_id"] == self.bot.id:
            user = self.bot
        if user is None:
            raise bad_request("user not found")
        return self._member(chat, user)

    async def _get_chat_administrators(self, params: JsonDict) -> list[JsonDict]:
        chat = self._chat_for(params["chat_id"])
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        people = [*([chat.owner] if chat.owner else []), *chat.admins.values()]
        return [self._member(chat, user) for user in people]

    async def _send_chat_action(self, params: JsonDict) -> bool:
        chat = self._chat_for(params["chat_id"])
        self._thread_for(chat, params, None, posting=False)
        return True

    # ----- threads and forum topics --------------------------------------------------------------

    def _thread_for(
        self, chat: FakeChat, params: JsonDict, replied: ChatMessage | None, *, posting: bool
    ) -> int | None:
        """The thread a bot's message goes to, checked as Telegram checks it.

        In a forum: the given topic, else the replied-to message's topic, else General (None);
        thread 1 (General's own id), an unknown or a deleted topic → "message thread not
        found", a closed one → TOPIC_CLOSED for a post. Outside forums the parameter is
        documented for forum supergroups (and bots' private chats with topics) only: a private
        chat or a basic group ignores it; a plain supergroup takes it as a reply thread, which
        must be one of its messages, or "message thread not found"."""
        raw = params.get("message_thread_id")
        if not chat.is_forum:
            if raw is None or chat.type != "supergroup":
                return None
            if chat.message(raw) is None:
                raise bad_request(THREAD_NOT_FOUND)
            value: int = raw
            return value
        thread_id = raw if raw is not None else (replied.topic_id if replied else None)
        if thread_id is None:
            if posting and chat.general_closed:
                raise bad_request(TOPIC_CLOSED)
            return None
        topic = chat.topics.get(thread_id)
        if topic is None or topic.deleted or thread_id == GENERAL_THREAD_ID:
            raise bad_request(THREAD_NOT_FOUND)
        if posting and topic.closed:
            raise bad_request(TOPIC_CLOSED)
        return topic.message_thread_id

    def _file_in_thread(
        self, data: JsonDict, chat: FakeChat, params: JsonDict, replied: ChatMessage | None
    ) -> None:
        thread_id = self._thread_for(chat, params, replied, posting=True)
        if thread_id is not None:
            data["message_thread_id"] = thread_id
            if chat.is_forum:
                data["is_topic_message"] = True

    def _forum_for(self, params: JsonDict) -> FakeChat:
        chat = self._chat_for(params["chat_id"])
        if not chat.is_forum:
            raise bad_request(NOT_A_FORUM)
        return chat

    def _bot_topic(self, chat: FakeChat, params: JsonDict, action: str) -> ForumTopic:
        """The topic a topic method names, once the bot's rights allow ``action`` on it (an
        admin, or the topic's creator except for deleting)."""
        topic = chat.topics.get(params["message_thread_id"])
        if topic is None or topic.deleted:
            raise bad_request(THREAD_NOT_FOUND)
        own = topic.creator_id == self.bot.id and action != "delete"
        if not chat.bot_is_admin and not own:
            raise bad_request(f"not enough rights to {action} the topic")
        return topic

    async def _create_forum_topic(self, params: JsonDict) -> JsonDict:
        chat = self._forum_for(params)
        if not chat.bot_is_admin:
            raise bad_request("not enough rights to create a topic")
        name = params["name"].strip()
        if not name:
            raise bad_request("TOPIC_TITLE_EMPTY")
        color = params.get("icon_color", FORUM_TOPIC_COLORS[0])
        if color not in FORUM_TOPIC_COLORS:
            raise bad_request("TOPIC_ICON_COLOR_INVALID")
        topic = self.create_topic(chat, name[:MAX_TOPIC_NAME_LENGTH], icon_color=color)
        if params.get("icon_custom_emoji_id"):
            topic.icon_custom_emoji_id = params["icon_custom_emoji_id"]
        return topic.as_json()

    async def _edit_forum_topic(self, params: JsonDict) -> bool:
        chat = self._forum_for(params)
        topic = self._bot_topic(chat, params, "edit")
        edited: JsonDict = {}
        if "name" in params:
            name = params["name"].strip()[:MAX_TOPIC_NAME_LENGTH]
            if not name:
                raise bad_request("TOPIC_TITLE_EMPTY")
            if name != topic.name:
                edited["name"] = name
        emoji = params.get("icon_custom_emoji_id")
        if emoji is not None and (emoji or None) != topic.icon_custom_emoji_id:
            edited["icon_custom_emoji_id"] = emoji
        if not edited:
            raise bad_request(TOPIC_NOT_MODIFIED)
        topic.name = edited.get("name", topic.name)
        if "icon_custom_emoji_id" in edited:
            topic.icon_custom_emoji_id = edited["icon_custom_emoji_id"] or None
        self._topic_service(
            chat, self.bot, topic.message_thread_id, {"forum_topic_edited": edited}, announce=False
        )
        return True

    async def _close_forum_topic(self, params: JsonDict) -> bool:
        return self._bot_toggles_topic(params, closed=True)

    async def _reopen_forum_topic(self, params: JsonDict) -> bool:
        return self._bot_toggles_topic(params, closed=False)

    def _bot_toggles_topic(self, params: JsonDict, *, closed: bool) -> bool:
        chat = self._forum_for(params)
        topic = self._bot_topic(chat, params, "close" if closed else "reopen")
        if topic.closed == closed:
            raise bad_request(TOPIC_NOT_MODIFIED)
        topic.closed = closed
        key = "forum_topic_closed" if closed else "forum_topic_reopened"
        self._topic_service(chat, self.bot, topic.message_thread_id, {key: {}}, announce=False)
        return True

    async def _close_general_forum_topic(self, params: JsonDict) -> bool:
        return self._bot_toggles_general(params, closed=True)

    async def _reopen_general_forum_topic(self, params: JsonDict) -> bool:
        return self._bot_toggles_general(params, closed=False)

    def _bot_toggles_general(self, params: JsonDict, *, closed: bool) -> bool:
        chat = self._forum_for(params)
        if not chat.bot_is_admin:
            raise bad_request(f"not enough rights to {'close' if closed else 'reopen'} the topic")
        if chat.general_closed == closed:
            raise bad_request(TOPIC_NOT_MODIFIED)
        chat.general_closed = closed
        key = "forum_topic_closed" if closed else "forum_topic_reopened"
        self._topic_service(chat, self.bot, None, {key: {}}, announce=False)
        return True

    async def _delete_forum_topic(self, params: JsonDict) -> bool:
        chat = self._forum_for(params)
        self._drop_topic(chat, self._bot_topic(chat, params, "delete"))
        return True

    # ----- copies and forwards -------------------------------------------------------------------

    def _source_message(self, params: JsonDict, action: str) -> ChatMessage:
        source = self._chat_for(params["from_chat_id"])
        message = source.message(params["message_id"])
        if message is None:
            raise bad_request(f"message to {action} not found")
        if message.service is not None:
            raise bad_request(f"message can't be {'copied' if action == 'copy' else 'forwarded'}")
        return message

    def _repost(
        self, params: JsonDict, original: ChatMessage, extra: JsonDict, keys: Iterable[str]
    ) -> ChatMessage:
        chat = self._chat_for(params["chat_id"])
        data: JsonDict = {
            "message_id": chat.next_message_id,
            "from": self.bot.as_json(),
            "date": int(time.time()),
            "chat": chat.as_json(),
            **extra,
        }
        for key in keys:
            if key in original.data:
                data[key] = copy.deepcopy(original.data[key])
        replied: ChatMessage | None = None
        reply = params.get("reply_parameters")
        if isinstance(reply, dict):
            replied = chat.message(reply.get("message_id", 0))
            if replied is not None:
                data["reply_to_message"] = _without_reply(replied.data)
            elif not reply.get("allow_sending_without_reply"):
                raise bad_request("message to be replied not found")
        self._file_in_thread(data, chat, params, replied)
        return self._store_message(chat, data)

    async def _copy_message(self, params: JsonDict) -> JsonDict:
        original = self._source_message(params, "copy")
        keys = ["text", "entities", "document", "caption", "caption_entities", "reply_markup"]
        if "reply_markup" in params:
            keys.remove("reply_markup")
        extra: JsonDict = {}
        markup = params.get("reply_markup")
        check_inline_keyboard(markup)
        if markup is not None and markup.get("inline_keyboard"):
            extra["reply_markup"] = markup
        copied = self._repost(params, original, extra, keys)
        return {"message_id": copied.message_id}

    async def _copy_messages(self, params: JsonDict) -> list[JsonDict]:
        return [
            await self._copy_message({**params, "message_id": message_id})
            for message_id in self._message_ids(params)
        ]

    async def _forward_messages(self, params: JsonDict) -> list[JsonDict]:
        forwarded = [
            await self._forward_message({**params, "message_id": message_id})
            for message_id in self._message_ids(params)
        ]
        return [{"message_id": message["message_id"]} for message in forwarded]

    def _message_ids(self, params: JsonDict) -> list[int]:
        """copyMessages' and forwardMessages' ids: 1 to 100, all there before any is sent."""
        ids: list[int] = sorted(set(params["message_ids"]))
        if not 1 <= len(ids) <= 100:
            raise bad_request("message identifiers are not specified")
        for message_id in ids:
            self._source_message({**params, "message_id": message_id}, "copy")
        return ids

    async def _forward_message(self, params: JsonDict) -> JsonDict:
        original = self._source_message(params, "forward")
        sender = original.data.get("from") or self.bot.as_json()
        origin: JsonDict = {
            "type": "user",
            "date": original.data.get("date", 0),
            "sender_user": sender,
        }
        keys = ["text", "entities", "document", "caption", "caption_entities"]
        forwarded = self._repost(params, original, {"forward_origin": origin}, keys)
        return copy.deepcopy(forwarded.data)

    def _generic_answer(self, spec: MethodSpec, params: JsonDict) -> Any:
        """Methods the bot is not expected to call still answer validly, so new bot code does
        not crash against the fake; the call stays recorded for tests to notice."""
        kind = spec.returns[0]
        if kind in ("Boolean", "True"):
            return True
        if kind.startswith("Array of"):
            return []
        if kind == "Message" and "chat_id" in params:
            chat = self._chat_for(params["chat_id"])
            data: JsonDict = {
                "message_id": chat.next_message_id,
                "from": self.bot.as_json(),
                "date": int(time.time()),
                "chat": chat.as_json(),
            }
            if isinstance(params.get("caption"), str):
                data["caption"] = params["caption"]
            self._file_in_thread(data, chat, params, None)
            return copy.deepcopy(self._store_message(chat, data).data)
        return self.schema.default(kind)


def _without_reply(data: JsonDict) -> JsonDict:
    """Telegram nests only one level of ``reply_to_message``."""
    return {k: copy.deepcopy(v) for k, v in data.items() if k != "reply_to_message"}
