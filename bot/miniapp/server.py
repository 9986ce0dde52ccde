"""The Mini App's HTTP side: the page, and its JSON API over the same Store as the chat.

Every API request carries Telegram's ``initData`` in ``X-Telegram-Init-Data``
(:mod:`bot.miniapp.initdata`): forged or expired → 401 and nothing happens. The campaign (the
chat the page was opened for) must be one the user belongs to (getChatMember, cached for a
few minutes) → else 403. A player opens their own sheet, and, when the campaign's
privacy setting (``ChatSettings.sheets_open``) says the sheets are open, another player's read
only: the answer carries ``read_only: true`` and every edit or roll on it is refused with 403.
Whoever runs the game (:mod:`bot.access`: the Storyteller, or an admin while there is none)
opens and edits any player's and the NPCs', which stay theirs alone.

Edits are compare-and-set: the page sends the version of the sheet it drew (a digest of the
stored sheet), the change runs inside the Store's atomic update and is refused with 409 and
the newest sheet when anything (a ``/set`` in the chat) changed it meanwhile, so neither
change is lost. A roll is not made here: it becomes a ``/r`` update of the player in the
campaign's chat, whose id is derived from the page's request id, and runs through the same
delivery as Telegram's updates (inbox, journal, Willpower paid once, logged and counted),
so a request sent twice, or re-run after a restart, is shown once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from aiogram import Bot, Dispatcher
from aiogram.enums import ChatMemberStatus
from aiogram.exceptions import TelegramAPIError
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from aiohttp import web

from bot.delivery import Delivery
from bot.features import FeatureSet
from bot.middlewares import chat_profile
from bot.miniapp import initdata, sheetview
from bot.miniapp.handoffs import REFRESH_LIVE, REFRESH_SCREEN
from bot.scope import scoped_bot
from bot.settings import Settings as BotSettings
from rules.d6.chance import DifficultyKind
from rules.errors import RulesInputError
from rules.health import DamageType, apply_damage, heal
from rules.profiles import GameSystem, Profile
from rules.sheet import (
    Sheet,
    add_paradox,
    add_wound,
    gain_blood,
    gain_quintessence,
    heal_wound,
    is_vampire,
    new_sheet,
    regain_willpower,
    remove_paradox,
    set_health,
    set_power,
    set_trait,
    spend_blood,
    spend_luck,
    spend_quintessence,
    spend_willpower,
    system_of,
    to_json,
)
from table.scope import Actor, Campaign, Scope
from table.store import REDIS_ERRORS, ChatSettings, SheetOwner, Store
from table.traits import Lang, TraitNameError, resolve

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MEMBER_TTL = 300.0  # seconds a getChatMember answer is trusted
MEMBERS_KEPT = 10_000  # answers kept before the stale ones are swept
MEMBER_STATUSES = frozenset(
    {
        ChatMemberStatus.CREATOR,
        ChatMemberStatus.ADMINISTRATOR,
        ChatMemberStatus.MEMBER,
        ChatMemberStatus.RESTRICTED,
    }
)
ADMIN_STATUSES = frozenset({ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR})
REQUEST_ID_MAX = 64
TRAITS_MAX = 2
D6_POWERS_MAX = 5
D6_REQUIRED_MAX = 5
# Above Telegram's update ids (32-bit): an update made from a page's request never meets one.
SYNTHETIC_BASE = 1 << 40
SYNTHETIC_MESSAGE = (1 << 31) - 1  # the command that never was: its answer replies to nothing


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Conflict(Exception):
    """The sheet changed since the page drew it: nothing was written."""


def version_of(sheet: Sheet) -> str:
    return hashlib.sha256(to_json(sheet).encode()).hexdigest()[:16]


def roll_update_id(campaign: int | Campaign, user_id: int, request_id: str) -> int:
    """The same page request is the same update, however often it arrives."""
    where = campaign if isinstance(campaign, Campaign) else Campaign(campaign)
    digest = hashlib.sha256(f"{where.key}:{user_id}:{request_id}".encode()).digest()
    return SYNTHETIC_BASE + int.from_bytes(digest[:5], "big")


@dataclass(frozen=True)
class Caller:
    """Who asks, for which campaign."""

    user: initdata.WebAppUser
    campaign: Campaign  # a chat's own game, or a forum topic's (opened from that topic)
    settings: ChatSettings
    profile: Profile
    runs_game: bool
    lang: Lang

    @property
    def chat_id(self) -> int:
        return self.campaign.chat_id

    @cached_property
    def scope(self) -> Scope:
        """The request's own scope, built as an update's is (ARCHITECTURE.md, "The update's
        scope"): its campaign, and the web user as its actor. No journal: a request is not
        run again, and a write here applies at once (a sheet's edit, checked by version)."""
        return Scope(
            campaign=self.campaign,
            actor=Actor(self.user.id, self.user.first_name, None),
            locale=self.lang,
            own=self.lang,
        )


@dataclass(frozen=True)
class Target:
    user_id: int | None  # a player's sheet, or
    npc: str | None  # an NPC's
    read_only: bool = False  # another player's, shown because the campaign's sheets are open


class MiniApp:
    """The page and its API for one bot; :meth:`add_routes` mounts them on an aiohttp app."""

    def __init__(
        self,
        bot: Bot,
        store: Store,
        token: str,
        i18n: I18n,
        dispatcher: Dispatcher | None = None,
        clock: Callable[[], float] = time.monotonic,
        features: FeatureSet | None = None,
    ) -> None:
        self.bot = bot
        self.store = store
        self.token = token
        self.i18n = i18n
        # The process's own delivery once it is handed over (:meth:`use`), so the page's rolls
        # queue behind their chat's updates like any other; until then one of its own.
        self.delivery = (
            Delivery(dispatcher, bot, store, take_over=False) if dispatcher is not None else None
        )
        self._owns_delivery = self.delivery is not None
        self.clock = clock
        found = dispatcher.workflow_data.get("features") if dispatcher is not None else None
        self.features = features or (found if isinstance(found, FeatureSet) else None)
        self._members: dict[tuple[int, int], tuple[float, str | None]] = {}

    def add_routes(self, app: web.Application, prefix: str = "/", *, index: bool = True) -> None:
        mount(app, prefix, lambda: self, index=index)

    def use(self, delivery: Delivery) -> None:
        """Run the page's rolls on the process's delivery (polling or webhook): one queue and
        one chat lock per chat for Telegram's updates and the page's alike."""
        self.delivery = delivery
        self._owns_delivery = False

    async def close(self, grace: float = 5.0) -> None:
        if self.delivery is not None and self._owns_delivery:
            self.delivery.stop()
            await self.delivery.drain(grace)

    # ----- the page ------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    # ----- who asks ------------------------------------------------------------------------

    async def _status(self, chat_id: int, user_id: int) -> str | None:
        """The user's getChatMember status in the chat (None: not known there), cached."""
        key = (chat_id, user_id)
        now = self.clock()
        cached = self._members.get(key)
        if cached is not None and now - cached[0] < MEMBER_TTL:
            return cached[1]
        try:
            member = await self.bot.get_chat_member(chat_id, user_id)
            status: str | None = str(getattr(member.status, "value", member.status))
        except TelegramAPIError:
            status = None
        if len(self._members) >= MEMBERS_KEPT:  # a day of strangers must not fill the memory
            self._members = {k: v for k, v in self._members.items() if now - v[0] < MEMBER_TTL}
        self._members[key] = (now, status)
        return status

    async def caller(self, request: web.Request, body: dict[str, Any] | None = None) -> Caller:
        raw = request.headers.get(initdata.HEADER, "")
        try:
            data = initdata.verify(raw, self.token)
        except initdata.InitDataError as error:
            raise Refused(401, error.refusal.value) from None
        given = (body or {}).get("campaign") if body is not None else None
        campaign = given if isinstance(given, str) else request.query.get("campaign")
        where = initdata.decode_campaign(campaign or data.start_param)
        if campaign and where is None:
            raise Refused(400, "campaign")
        if where is None:
            where = Campaign(data.user.id)  # opened from the private chat: its own campaign
        chat_id, user_id = where.chat_id, data.user.id
        if chat_id > 0:
            if chat_id != user_id:
                raise Refused(403, "foreign campaign")
            admin = True
        else:
            status = await self._status(chat_id, user_id)
            if status not in MEMBER_STATUSES:
                raise Refused(403, "not a member")
            admin = status in ADMIN_STATUSES
        settings = await self.store.load_chat(where)
        runs = settings.storyteller_id == user_id if settings.storyteller_id is not None else admin
        # The page is the reader's own: their Telegram language, as their toasts are.
        lang = sheetview.lang_of(data.user.language_code or settings.locale)
        return Caller(data.user, where, settings, chat_profile(settings), runs, lang)

    def store_of(self, caller: Caller) -> Store:
        """The Store bound to the request's scope, as an update's is bound to the update's
        (no connection of its own)."""
        return self.store.bound(caller.scope)

    def target(self, caller: Caller, given: Any, npc: Any) -> Target:
        if isinstance(npc, str) and npc.strip():
            if not caller.runs_game:
                raise Refused(403, "NPC sheets are the Storyteller's")
            return Target(None, " ".join(npc.split())[:64])
        if given in (None, ""):
            return Target(caller.user.id, None)
        try:
            user_id = int(given)
        except (TypeError, ValueError):
            raise Refused(400, "bad user") from None
        if user_id != caller.user.id and not caller.runs_game:
            if not caller.settings.sheets_open:
                raise Refused(403, "another player's sheet")
            return Target(user_id, None, read_only=True)
        return Target(user_id, None)

    async def load(self, caller: Caller, target: Target) -> Sheet:
        system = system_of(caller.profile)
        if target.npc is not None:
            found = await self.store_of(caller).load_npc(caller.chat_id, system, target.npc)
        else:
            assert target.user_id is not None
            found = await self.store_of(caller).load_sheet(caller.chat_id, target.user_id, system)
        return found or new_sheet(system)

    async def describe(self, caller: Caller, target: Target, sheet: Sheet) -> dict[str, Any]:
        system = system_of(caller.profile)
        name = target.npc
        others: list[dict[str, Any]] = []
        if caller.runs_game or caller.settings.sheets_open:
            for player in await self.store_of(caller).list_sheets(caller.chat_id, system):
                if player.owner.user_id != caller.user.id or caller.runs_game:
                    others.append({"user": player.owner.user_id, "name": player.owner.name})
        if caller.runs_game:
            for npc_name, _sheet in await self.store_of(caller).list_npcs(caller.chat_id, system):
                others.append({"npc": npc_name, "name": npc_name})
        if name is None:
            name = caller.user.first_name if target.user_id == caller.user.id else None
            for other in others:
                if other.get("user") == target.user_id:
                    name = str(other["name"])
            name = name or str(target.user_id)
        with self.i18n.context(), self.i18n.use_locale(caller.lang):
            drawn = sheetview.draw(sheet, caller.profile, caller.lang)
            drawn["labels"] = sheetview.labels()
            note = sheetview.read_only_note(name) if target.read_only else None
        drawn.update(
            read_only=target.read_only,
            read_only_note=note,
            version=version_of(sheet),
            name=name,
            target={"user": target.user_id, "npc": target.npc},
            storyteller=caller.runs_game,
            others=others,
            campaign=initdata.encode_campaign(caller.campaign),
            default_difficulty=caller.profile.default_difficulty,
            lang=caller.lang,
        )
        return drawn

    async def _refresh_live(self, caller: Caller) -> None:
        """The chat's tracker shows health: it is redrawn as after a ``/dmg`` in the chat, in
        the chat's language. The edit is stored already, so a failure here costs the redraw
        only (the tracker catches up at its next step)."""
        if self.features is None or not self.features.has(REFRESH_LIVE):
            return
        locale = caller.settings.locale or self.i18n.default_locale
        try:
            with self.i18n.context(), self.i18n.use_locale(locale):
                await self.features.handoff(REFRESH_LIVE)(
                    scoped_bot(self.bot, caller.scope),
                    self.store_of(caller),
                    caller.chat_id,
                    caller.profile,
                )
        except Exception:
            log.exception("live messages of %s not redrawn", caller.chat_id)

    async def _refresh_screen(self, caller: Caller) -> None:
        """The campaign's open Storyteller's screen shows the sheet just changed: redrawn as
        after a change in the group (handlers/screen/watch.py); a failure costs the redraw
        only."""
        if self.features is None or not self.features.has(REFRESH_SCREEN):
            return
        if not caller.settings.screen:
            return  # no screen open: nothing to read or draw
        try:
            with self.i18n.context():
                await self.features.handoff(REFRESH_SCREEN)(
                    self.bot, self.store, caller.campaign, caller.settings.screen
                )
        except Exception:
            log.exception("the screen of %s not redrawn", caller.chat_id)

    # ----- the API -------------------------------------------------------------------------

    async def _guarded(
        self, request: web.Request, work: Callable[[web.Request], Any]
    ) -> web.Response:
        try:
            result: web.Response = await work(request)
            return result
        except Refused as refused:
            return self._refusal(request, refused.status, refused.reason)
        except REDIS_ERRORS:
            return self._refusal(request, 503, "store away")

    def _refusal(self, request: web.Request, status: int, reason: str) -> web.Response:
        """The refusal with a sentence for the reader, in the language their launch data
        names (read for the words only: nothing else is trusted from unsigned data)."""
        raw = dict(parse_qsl(request.headers.get(initdata.HEADER, "")))
        try:
            said = json.loads(raw.get("user", "{}")).get("language_code")
        except (ValueError, AttributeError):
            said = None
        lang = sheetview.lang_of(said if isinstance(said, str) else self.i18n.default_locale)
        with self.i18n.context(), self.i18n.use_locale(lang):
            message = sheetview.refusal_text(status)
        return web.json_response({"error": reason, "message": message}, status=status)

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise Refused(400, "the body must be JSON") from None
        if not isinstance(body, dict):
            raise Refused(400, "the body must be a JSON object")
        return body

    async def _sheet(self, request: web.Request) -> web.Response:
        async def work(request: web.Request) -> web.Response:
            caller = await self.caller(request)
            target = self.target(caller, request.query.get("user"), request.query.get("npc"))
            sheet = await self.load(caller, target)
            return web.json_response(await self.describe(caller, target, sheet))

        return await self._guarded(request, work)

    async def _edit(self, request: web.Request) -> web.Response:
        async def work(request: web.Request) -> web.Response:
            body = await self._body(request)
            caller = await self.caller(request, body)
            target = self.target(caller, body.get("user"), body.get("npc"))
            if target.read_only:
                raise Refused(403, "read-only sheet")
            change = edit_of(body, caller.profile)
            seen = body.get("version")

            def checked(sheet: Sheet) -> Sheet:
                if seen != version_of(sheet):
                    raise Conflict
                return change(sheet)

            system = system_of(caller.profile)
            try:
                if target.npc is not None:
                    sheet = await self.store_of(caller).update_npc(
                        caller.chat_id, system, target.npc, checked
                    )
                else:
                    assert target.user_id is not None
                    owner = (
                        SheetOwner(
                            user_id=caller.user.id,
                            name=caller.user.first_name,
                            username=caller.user.username,
                        )
                        if target.user_id == caller.user.id
                        else None
                    )
                    sheet = await self.store_of(caller).update_sheet(
                        caller.chat_id, target.user_id, system, checked, owner=owner
                    )
            except Conflict:
                fresh = await self.load(caller, target)
                drawn = await self.describe(caller, target, fresh)
                return web.json_response({"conflict": True, "sheet": drawn}, status=409)
            except RulesInputError as error:
                return web.json_response({"error": "refused", "field": error.field}, status=422)
            if body.get("op") in ("wound", "heal", "set"):
                await self._refresh_live(caller)
            await self._refresh_screen(caller)
            return web.json_response({"sheet": await self.describe(caller, target, sheet)})

        return await self._guarded(request, work)

    def _pick(self, body: dict[str, Any], profile: Profile, sheet: Sheet) -> Ask:
        """The roll the page composed. In the d6 game the picks are the sheet's powers,
        ``difficulty`` the measures required, ``willpower`` the weakness and ``threshold``
        the luck dice spent."""
        traits = body.get("traits")
        d6 = profile.system is GameSystem.D6
        most = D6_POWERS_MAX if d6 else TRAITS_MAX
        if not isinstance(traits, list) or not 1 <= len(traits) <= most:
            raise Refused(400, f"pick 1 to {most} traits")
        picked: list[str] = []
        if d6:
            powers = {p.name.casefold(): p.name for p in sheet.powers}
            for trait in traits:
                name = powers.get(str(trait).casefold())
                if name is None:
                    raise Refused(400, "unknown power")
                picked.append(name)
        else:
            for trait in traits:
                try:
                    picked.append(str(resolve(str(trait)[:40], system_of(profile))))
                except TraitNameError:
                    raise Refused(400, "unknown trait") from None
        low, high = (1, D6_REQUIRED_MAX) if d6 else (2, 10)
        difficulty = body.get("difficulty", 1 if d6 else profile.default_difficulty)
        threshold = body.get("threshold", 0)
        if isinstance(difficulty, bool) or not isinstance(difficulty, int):
            raise Refused(400, "difficulty")
        if not low <= difficulty <= high:
            raise Refused(400, f"difficulty {low} to {high}")
        if isinstance(threshold, bool) or not isinstance(threshold, int):
            raise Refused(400, "threshold")
        if not 0 <= threshold <= 10:
            raise Refused(400, "threshold 0 to 10")
        return Ask(tuple(picked), difficulty, body.get("willpower") is True, threshold, d6)

    async def _odds(self, request: web.Request) -> web.Response:
        async def work(request: web.Request) -> web.Response:
            body = await self._body(request)
            caller = await self.caller(request, body)
            sheet = await self.load(caller, Target(caller.user.id, None))
            ask = self._pick(body, caller.profile, sheet)
            with self.i18n.context(), self.i18n.use_locale(caller.lang):
                if ask.d6:
                    odds = sheetview.d6_odds(
                        sheet,
                        caller.profile,
                        caller.user.first_name,
                        ask.traits,
                        ask.difficulty,
                        ask.willpower,
                        ask.threshold,
                    )
                else:
                    odds = sheetview.odds(
                        sheet,
                        caller.profile,
                        ask.traits,
                        ask.difficulty,
                        ask.willpower,
                        ask.threshold,
                    )
            return web.json_response(odds)

        return await self._guarded(request, work)

    async def _roll(self, request: web.Request) -> web.Response:
        async def work(request: web.Request) -> web.Response:
            body = await self._body(request)
            caller = await self.caller(request, body)
            request_id = body.get("request_id")
            if not isinstance(request_id, str) or not 8 <= len(request_id) <= REQUEST_ID_MAX:
                raise Refused(400, "request_id: 8 to 64 characters")
            # a roll is always the roller's own: one aimed at a sheet read only is refused
            if self.target(caller, body.get("user"), body.get("npc")).read_only:
                raise Refused(403, "read-only sheet")
            sheet = await self.load(caller, Target(caller.user.id, None))
            ask = self._pick(body, caller.profile, sheet)
            if self.delivery is None:
                raise Refused(503, "rolls are not served here")
            raw = roll_update(caller, request_id, ask.line())
            await self.delivery.receive([raw])
            return web.json_response({"posted": True, "update_id": raw["update_id"]})

        return await self._guarded(request, work)


@dataclass(frozen=True)
class Ask:
    """A roll composed on the page (see :meth:`MiniApp._pick` for the d6 reading)."""

    traits: tuple[str, ...]
    difficulty: int
    willpower: bool
    threshold: int
    d6: bool = False

    def line(self) -> str:
        """The ``/r`` line the player would have typed."""
        line = "+".join(self.traits) + f" {self.difficulty}"
        if self.d6:
            if self.threshold:
                line += f" luck {self.threshold}"
            return line + (" weak" if self.willpower else "")
        if self.threshold:
            line += f" t{self.threshold}"
        return line + (" wp" if self.willpower else "")


def mount(
    app: web.Application,
    prefix: str,
    get: Callable[[], MiniApp | None],
    *,
    index: bool = True,
) -> None:
    """The page and the API under ``prefix``, answered by whatever Mini App ``get`` gives at
    request time (503 before there is one: the playground mounts it before its bot exists)."""

    def route(name: str) -> Callable[[web.Request], Any]:
        async def handler(request: web.Request) -> web.StreamResponse:
            miniapp = get()
            if miniapp is None:
                return web.json_response({"error": "starting"}, status=503)
            answer: web.StreamResponse = await getattr(miniapp, name)(request)
            return answer

        return handler

    if index:
        app.router.add_get(prefix, route("_index"))
        if prefix != "/":
            # MINIAPP_URL as given to @BotFather, without the slash: the page's relative
            # links need it (the browser keeps the launch data's fragment across a redirect).
            async def slash(request: web.Request) -> web.Response:
                query = f"?{request.query_string}" if request.query_string else ""
                return web.Response(status=302, headers={"Location": prefix + query})

            app.router.add_get(prefix.rstrip("/"), slash)
    app.router.add_get(prefix + "index.html", route("_index"))
    app.router.add_static(prefix + "static/", STATIC)
    app.router.add_get(prefix + "api/sheet", route("_sheet"))
    app.router.add_post(prefix + "api/edit", route("_edit"))
    app.router.add_post(prefix + "api/odds", route("_odds"))
    app.router.add_post(prefix + "api/roll", route("_roll"))


def roll_update(caller: Caller, request_id: str, line: str) -> dict[str, Any]:
    """The ``/r`` the player would have typed in the campaign's chat (in its topic, for a
    forum topic's campaign), as an update."""
    chat_id = caller.chat_id
    chat: dict[str, Any] = {"id": chat_id}
    if chat_id > 0:
        chat.update(type="private", first_name=caller.user.first_name)
    else:
        chat.update(type="supergroup" if str(chat_id).startswith("-100") else "group")
        chat["title"] = "campaign"
    user: dict[str, Any] = {
        "id": caller.user.id,
        "is_bot": False,
        "first_name": caller.user.first_name,
    }
    if caller.user.username:
        user["username"] = caller.user.username
    if caller.user.language_code:
        user["language_code"] = caller.user.language_code
    text = f"/r {line}"
    message: dict[str, Any] = {
        "message_id": SYNTHETIC_MESSAGE,
        "date": int(time.time()),
        "chat": chat,
        "from": user,
        "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": 2}],
    }
    thread = caller.campaign.thread_id
    if thread is not None:  # filed in its topic, as Telegram files a line typed there
        chat["is_forum"] = True
        message.update(message_thread_id=thread, is_topic_message=True)
    return {
        "update_id": roll_update_id(caller.campaign, caller.user.id, request_id),
        "message": message,
    }


def _int(body: dict[str, Any], name: str, low: int, high: int) -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(400, f"{name}: a number {low} to {high}")
    return value


def edit_of(body: dict[str, Any], profile: Profile) -> Callable[[Sheet], Sheet]:
    """The pure change a page's tap asks for; 400 for anything it cannot mean."""
    op = body.get("op")
    if op == "set":
        trait = body.get("trait")
        value = _int(body, "value", 0, 100)
        if not isinstance(trait, str) or not trait:
            raise Refused(400, "trait")
        return lambda sheet: set_trait(sheet, trait[:40], value, profile)
    if op == "power":
        name = body.get("name")
        level = _int(body, "value", 0, 10)
        if not isinstance(name, str) or not name.strip():
            raise Refused(400, "name")
        return lambda sheet: set_power(sheet, name[:40], level)
    if op == "spend" or op == "gain":
        what = body.get("what")
        points = _int(body, "points", 1, 10) if "points" in body else 1
        spends: dict[str, Callable[[Sheet], Sheet]] = {
            "willpower": lambda s: spend_willpower(s, points),
            "quintessence": lambda s: spend_quintessence(s, points, profile),
            "blood": lambda s: spend_blood(s, points),
            "luck": lambda s: spend_luck(s, points),
            "paradox": lambda s: remove_paradox(s, points),
        }
        gains: dict[str, Callable[[Sheet], Sheet]] = {
            "willpower": lambda s: regain_willpower(s, points),
            "quintessence": lambda s: gain_quintessence(s, points, profile),
            "blood": lambda s: gain_blood(s, points),
            "paradox": lambda s: add_paradox(s, points, profile),
        }
        table = spends if op == "spend" else gains
        if not isinstance(what, str) or what not in table:
            raise Refused(400, "what")
        return table[what]
    if op == "wound":
        kind = body.get("kind", "B")
        if kind not in ("B", "L", "A"):
            raise Refused(400, "kind")
        damage = DamageType(kind)
        return lambda s: set_health(
            s, apply_damage(s.health, damage, 1, undead=is_vampire(s)).track
        )
    if op == "heal":
        return lambda s: set_health(s, heal(s.health, 1))
    if op == "add_wound":
        kind = body.get("kind")
        severity = _int(body, "value", 1, 5)
        if kind not in (DifficultyKind.PHYSICAL_WOUND.value, DifficultyKind.MENTAL_WOUND.value):
            raise Refused(400, "kind")
        wound_kind = DifficultyKind(kind)
        return lambda s: add_wound(s, wound_kind, severity)
    if op == "heal_wound":
        index = _int(body, "index", 0, 40)
        return lambda s: heal_wound(s, index)
    raise Refused(400, "op")


def page_text() -> str:
    """The page's title, for the catalogue (the page draws the rest from the API)."""
    return _("Character sheet")


def build(settings: BotSettings, dispatcher: Dispatcher, bot: Bot) -> MiniApp | None:
    """The Mini App of this process, when MINIAPP_URL says where the operator serves it."""
    if settings.miniapp_url is None or settings.bot_token is None:
        return None
    store: Store = dispatcher.workflow_data["store"]
    i18n: I18n = dispatcher.workflow_data["i18n"]
    token = settings.bot_token.get_secret_value()
    return MiniApp(bot, store, token, i18n, dispatcher)


@asynccontextmanager
async def serving(settings: BotSettings, miniapp: MiniApp | None) -> AsyncIterator[None]:
    """Serve the Mini App on MINIAPP_HOST:MINIAPP_PORT for the block (polling mode; a
    webhook server mounts it on its own app instead)."""
    if miniapp is None:
        yield
        return
    app = web.Application()
    miniapp.add_routes(app, settings.miniapp_path)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, settings.miniapp_host, settings.miniapp_port).start()
        log.info(
            "Mini App on %s:%d%s",
            settings.miniapp_host,
            settings.miniapp_port,
            settings.miniapp_path,
        )
        yield
    finally:
        await miniapp.close()
        await runner.cleanup()
