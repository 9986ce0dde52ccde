"""Each feature's sample scenes, and a hand that presses every button the bot draws in them.

A scene is what a table types to reach a feature's messages: a Storyteller (``st``), a player
(``p``), another player (``q``) and an administrator who is not the Storyteller (``e``), in a
game. ``play`` types it at a recording Table and
``press_everything`` then presses every button of every message the bot sent or redrew, the
new ones too, until nothing new is drawn. The buttons so reached are the real ones the fuzzer
forges and mutates (tests/handlers/test_fuzz_all.py) and the screens the name test reads
(tests/handlers/test_names_escaped.py): a new feature adds its scene here, not a button list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from aiogram.filters.callback_data import CallbackData, CallbackQueryFilter
from aiogram.methods import EditMessageReplyMarkup, EditMessageText, SendMessage, TelegramMethod
from aiogram.types import (
    CallbackQuery,
    Chat,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    User,
)

from bot import fallback
from handlers import all_features
from table.store import Store, flow_key
from tests.handlers.conftest import Table

DICE = User(id=123456, is_bot=True, first_name="Dice")  # the bot itself (the token's id)


@dataclass(frozen=True)
class Line:
    """One thing said: by a role, maybe answering another role's message, maybe in private."""

    who: str
    text: str
    reply_to: str | None = None
    private: bool = False


@dataclass(frozen=True)
class Scene:
    profile: str
    lines: tuple[Line, ...]


def lines(*said: str | Line) -> tuple[Line, ...]:
    """``"p /r 5 6"`` is the player typing ``/r 5 6``; a Line says more."""
    return tuple(
        s if isinstance(s, Line) else Line(s.split(" ", 1)[0], s.split(" ", 1)[1]) for s in said
    )


NPC = "Гро & <м>"  # an NPC's name as the Storyteller types it (the name test's nasty one)
STRANGER = "Мимо & <т>"  # an NPC nobody made
WORD = "ло<в>&к"  # a trait word nobody knows
D10_TABLE = lines(
    "st /st",
    "p /set ловкость 3 смекалка 2 драка 2 восприятие 2 бдительность 1 сила воли 5 "
    "выносливость 2 уклонение 1 сила 2",
    "q /set ловкость 2 смекалка 3 уклонение 2 выносливость 1 восприятие 3 бдительность 2",
    f"st /npc {NPC}: ловкость 3 драка 2 восприятие 2 смекалка 2 выносливость 2",
)
MAGE = lines("p /set арете 3 материя 2 силы 1 квинтэссенция 3")
D6_TABLE = lines(
    "st /st",
    "p /set\nСила 2\nЛовкость 3\nХитрость 1\nСлабость 2\nКубики удачи 1",
    "q /set\nСила 1\nЛовкость 2\nХитрость 2",
    f"st /npc {NPC}: сила 2 ловкость 2",
)

# Feature name (handlers.FEATURES) → its scenes; every feature with a message has one.
SCENES: dict[str, tuple[Scene, ...]] = {
    "roll": (
        Scene(
            "mage",
            lines(
                "p /r 5 6", "p /r ловк+драка 6", "p /r", f"st /r {NPC} 6", f"p /r {WORD}+драка 6"
            ),
        ),
        Scene("dark-ages", lines("p /r ловк+драка 6 св", "q /r 3")),
    ),
    "prob": (Scene("mage", lines("p /prob 5 6")), Scene("d6", lines("p /prob 3"))),
    "extended": (Scene("mage", lines("p /ext 6 6 10", "q /ext")),),
    "opposed": (
        Scene(
            "mage",
            (
                Line("st", "/vs 5 6", reply_to="p"),
                Line("p", "/vs ловк+драка 6", reply_to="q"),
                Line("st", f"/vs {NPC} 6", reply_to="q"),
            ),
        ),
    ),
    "teamwork": (Scene("mage", lines("p /team 6 6", "q /team")),),
    "multi": (Scene("mage", lines("p /multi 6 7 7", "q /multi")),),
    "sheet": (
        Scene(
            "mage",
            lines(
                "p /sheet",
                "q /set",
                f"q /set {WORD} 3",
                "st /sheet all",
                "st /npc",
                f"st /npc {NPC}",
                f"st /npc {STRANGER}",
            ),
        ),
        Scene("d6", lines("p /sheet", "q /set", "st /sheet all")),
    ),
    "combat": (
        Scene(
            "mage",
            lines(
                "p /init 7",
                "q /init 5",
                f"st /init npc {NPC} 9",
                f"st /init npc {STRANGER}",
                "p /init",
            ),
        ),
        Scene(
            "mage",
            lines("p /init", "q /init", f"st /init npc {NPC} 5", "p /atk", f"st /atk npc {NPC}"),
        ),
        Scene(
            "mage",
            lines(
                "p /dmg 3 l",
                "p /dmg 2 b",
                "p /hp",
                "p /heal",
                f"st /dmg npc {NPC} 2 l",
                f"st /hp npc {NPC}",
                f"st /dmg npc {STRANGER} 2 l",
                "q /heal",
                "q /dmg 8 a",
                "q /dmg 1 l",
            ),
        ),
    ),
    "magick": (
        Scene(
            "mage",
            (
                *MAGE,
                *lines(
                    "p /m материя 3",
                    f"p /m {WORD} 3",
                    f"p /sphere {WORD}",
                    "p /m 1",
                    "p /sphere",
                    "p /m",
                ),
            ),
        ),
    ),
    "hidden": (
        Scene(
            "mage",
            (
                Line("st", "/start", private=True),
                *lines("st /h 7 6", "st /h", "st /reveal"),
                Line("st", "/h", private=True),
            ),
        ),
    ),
    "requests": (Scene("mage", lines("st /ask восп+бдит 8")),),
    # More rolls than one page of /log shows, so it draws its page buttons.
    "history": (Scene("mage", (*lines("p /r 5 6", "q /r 4 6") * 9, *lines("p /log", "p /stats"))),),
    "storyteller": (Scene("mage", lines("q /st", "e /st", "st /st")),),
    # The Storyteller's screen in the private chat, over a fight with an NPC in it.
    "screen": (
        Scene(
            "mage",
            (
                *D10_TABLE,
                *lines("p /init", f"st /init npc {NPC} 2"),
                Line("st", "/screen", private=True),
            ),
        ),
    ),
    "session": (
        Scene("mage", lines("st /st", "st /session start", "p /r 5 6", "st /session end")),
    ),
    "chronicle": (Scene("mage", lines("st /st", "st /session start", "p /r 5 6", "p /chronicle")),),
    "notify": (Scene("mage", lines("p /notify off", "p /notify on", "p /notify")),),
    "settings": (Scene("mage", lines("st /lang", "st /rules")),),
    "start": (Scene("mage", lines("p /help")),),
    "wizard": (Scene("mage", lines("p /r", "q /ext", "p /team")),),
    "d6roll": (
        Scene("d6", lines("p /r сила+ловкость", "q /r 3", "p /r 2 уловка", f"q /r {WORD}+сила")),
    ),
    "d6combat": (
        Scene(
            "d6",
            lines(
                "p /init 2",
                "q /init 1",
                f"st /init npc {NPC} 2",
                f"st /init npc {STRANGER}",
                "p /init",
            ),
        ),
        Scene("d6", lines("p /init 2", "q /init 1", "p /atk 3", "q /atk")),
        Scene(
            "d6",
            lines(
                "p /dmg 1 тел",
                f"st /dmg npc {NPC} 2 тел",
                f"st /dmg npc {STRANGER} 2 тел",
                "p /heal 1",
                "q /heal 1",
            ),
        ),
    ),
    "d6contest": (
        Scene("d6", (Line("p", "/vs 4", reply_to="q"), Line("st", f"/vs {NPC} 3", reply_to="p"))),
    ),
    "d6project": (Scene("d6", lines("p /project 3 Починить катер", "q /project")),),
    "d6requests": (Scene("d6", lines("st /ask 4", "st /ask сила+ловкость")),),
    # Inline mode's own buttons hang under messages with no chat (tests/handlers/inline
    # presses them); here: the campaign chooser of /inline in the private chat, and /inline
    # typed in the group.
    "inline": (
        Scene(
            "mage",
            (
                *lines("p /r 5 6", "q /r ловк 6", "p /inline"),
                Line("p", "/inline", private=True),
                Line("q", "/inline", private=True),
            ),
        ),
    ),
}


def preamble(profile: str) -> tuple[Line, ...]:
    """What every scene of a game starts with: a Storyteller, two sheets, an NPC."""
    if profile == "d6":
        return D6_TABLE
    return D10_TABLE


def private(user: User) -> Chat:
    return Chat(id=user.id, type="private", first_name=user.first_name)


async def say(table: Table, user: User, line: Line, cast: Mapping[str, User]) -> None:
    """``user`` types ``line``; a reply answers a message of the role named."""
    chat = private(user) if line.private else table.chat
    table.message_id += 1
    first = line.text.split()[0] if line.text.split() else ""
    entities = (
        [MessageEntity(type="bot_command", offset=0, length=len(first))]
        if line.text.startswith("/")
        else None
    )
    replied = None
    if line.reply_to is not None:
        replied = Message(
            message_id=table.message_id,
            date=datetime.now(UTC),
            chat=chat,
            from_user=cast[line.reply_to],
            text="my turn",
        )
        table.message_id += 1
    message = Message(
        message_id=table.message_id,
        date=datetime.now(UTC),
        chat=chat,
        from_user=user,
        text=line.text,
        entities=entities,
        reply_to_message=replied,
    )
    await table.feed(message=message)


async def play(table: Table, scene: Scene, cast: Mapping[str, User]) -> None:
    """The scene's game, its preamble and its lines, typed by the cast (st, p, q, e)."""
    table.session.admins.update({cast["st"].id, cast["e"].id})
    await table.store.update_chat(table.chat.id, profile=scene.profile)
    for line in (*preamble(scene.profile), *scene.lines):
        await say(table, cast[line.who], line, cast)


@dataclass(frozen=True)
class Button:
    """A button the bot drew: its data and the message it hangs under."""

    data: str
    chat_id: int
    message_id: int


def _markup(call: TelegramMethod[Any]) -> InlineKeyboardMarkup | None:
    markup = getattr(call, "reply_markup", None)
    return markup if isinstance(markup, InlineKeyboardMarkup) else None


def drawn_buttons(table: Table) -> list[Button]:
    """The buttons under the bot's messages as they are now (the last send or edit wins)."""
    shown: dict[tuple[int, int], InlineKeyboardMarkup | None] = {}
    sent = iter(table.session.messages)
    for call in table.session.calls:
        if isinstance(call, SendMessage):
            message = next(sent)
            shown[(int(call.chat_id), message.message_id)] = _markup(call)
        elif isinstance(call, EditMessageText | EditMessageReplyMarkup):
            shown[(int(call.chat_id or 0), call.message_id or 0)] = _markup(call)
    found = []
    for (chat_id, message_id), markup in shown.items():
        for row in markup.inline_keyboard if markup else ():
            for button in row:
                if button.callback_data:
                    found.append(Button(button.callback_data, chat_id, message_id))
    return found


def callback_factories() -> list[type[CallbackData]]:
    """Every callback_data factory some router filters on: a new feature's buttons count."""
    found: list[type[CallbackData]] = []
    for top in fallback.routers(all_features()):
        for handler in (h for router in top.chain_tail for h in router.callback_query.handlers):
            for flt in handler.filters or ():
                if isinstance(flt.callback, CallbackQueryFilter):
                    found.append(flt.callback.callback_data)
    return found


CALLBACK_FACTORIES = callback_factories()


def unpacked(data: str) -> CallbackData | None:
    for factory in CALLBACK_FACTORIES:
        try:
            return factory.unpack(data)
        except (TypeError, ValueError):
            continue
    return None


def flow_of(data: str) -> str | None:
    """The flow a button's data names, if any (every flow button carries it as ``f``)."""
    parsed = unpacked(data)
    flow = getattr(parsed, "f", None)
    return flow if isinstance(flow, str) else None


async def owner_id(store: Store, chat_id: int, data: str) -> int | None:
    """Who opened the flow behind ``data`` in ``chat_id``, read from today's key."""
    flow = flow_of(data)
    if flow is None:
        return None
    owner = await store.redis.hget(flow_key(chat_id, flow), "owner_id")
    return int(owner) if owner is not None and str(owner).lstrip("-").isdigit() else None


def chat_of(table: Table, chat_id: int) -> Chat:
    if chat_id == table.chat.id:
        return table.chat
    return Chat(id=chat_id, type="private", first_name="p")


async def tap(table: Table, user: User, button: Button) -> str:
    """Press ``button`` as ``user``; returns the callback query's id."""
    query_id = f"cb{table.update_id + 1}"
    message = Message(
        message_id=button.message_id,
        date=datetime.now(UTC),
        chat=chat_of(table, button.chat_id),
        from_user=DICE,
        text="…",
    )
    query = CallbackQuery(
        id=query_id, from_user=user, chat_instance="ci", message=message, data=button.data
    )
    await table.feed(callback_query=query)
    return query_id


Press = Callable[[Table, User, Button], Awaitable[object]]


async def _plain_press(table: Table, user: User, button: Button) -> None:
    await tap(table, user, button)


async def press_everything(
    table: Table,
    cast: Mapping[str, User],
    press: Press = _plain_press,
    limit: int = 80,
    by: str | None = None,
) -> list[Button]:
    """Press every button the bot has drawn, as its flow's owner (else the Storyteller), and
    every button those presses draw, each (message, data) once, up to ``limit`` presses;
    the message pressed least so far goes first, so one deep menu cannot use the whole
    budget; ``by`` names a role to press everything instead (a refusal's words). Returns
    every button pressed, in order."""
    users = {user.id: user for user in cast.values()}
    pressed: list[Button] = []
    seen: set[Button] = set()
    per_message: Counter[tuple[int, int]] = Counter()
    while len(pressed) < limit:
        fresh = [b for b in drawn_buttons(table) if b not in seen]
        if not fresh:
            break
        button = min(fresh, key=lambda b: per_message[(b.chat_id, b.message_id)])
        per_message[(button.chat_id, button.message_id)] += 1
        seen.add(button)
        owner = await owner_id(table.store, button.chat_id, button.data)
        user = cast[by] if by is not None else users.get(owner or 0, cast["st"])
        await press(table, user, button)
        pressed.append(button)
    return pressed
