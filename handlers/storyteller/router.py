"""``/st``: the Storyteller's role (Рассказчик; docs/product.md §2 "Storyteller").

Who may claim it: a chat administrator (getChatMember says creator or administrator). The
role is one field of the chat's settings, changed only by the Store's compare-and-set, so of
two admins claiming at once exactly one wins.

How it moves:

- no Storyteller yet: an admin's ``/st`` takes the role at once;
- the Storyteller's ``/st`` as a reply to a player's message (or with a text mention) hands
  the role to that player: the game is theirs to give;
- another admin's ``/st`` asks for a confirmation tap, so nobody takes the role by a slip.

Anonymous administrators post as the group itself (``sender_chat`` is the chat, ``from`` is
GroupAnonymousBot), so their command says nothing about who they are. Their ``/st`` answers
with a «Я Рассказчик» button instead: a button press always arrives with the presser's real
user id, which is checked against getChatMember and becomes the Storyteller's id. From then
on the anonymous Storyteller rolls hidden dice from the private chat with the bot, where
they are not anonymous (``handlers.hidden``).

Every feature asks :mod:`bot.access` who runs the game: chat admins until a Storyteller
exists, then only they do.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.enums import ChatType, MessageEntityType
from aiogram.filters import Command
from aiogram.types import Chat, Message, User

from bot import runner
from bot.access import is_anonymous, is_chat_admin
from handlers.storyteller import view
from handlers.storyteller.flow import ClaimState
from handlers.storyteller.tap import TAP
from rules.profiles import GameSystem, Profile
from table.store import ChatSettings, Store


def make_router() -> Router:
    router = Router(name="storyteller")
    router.message.register(storyteller_command, Command("st"))
    runner.register(router, TAP)
    return router


def _chat_title(chat: Chat) -> str:
    return chat.title or str(chat.id)


def _target(message: Message) -> User | None:
    """Who the Storyteller hands the role to: the author of the replied message, or a text
    mention. A bot, or a message posted as a chat (anonymous admin, channel), is nobody."""
    replied = message.reply_to_message
    if replied is not None:
        author = replied.from_user
        if replied.sender_chat is None and author is not None and not author.is_bot:
            return author
        return None
    for entity in message.entities or []:
        if entity.type == MessageEntityType.TEXT_MENTION and entity.user is not None:
            return None if entity.user.is_bot else entity.user
    return None


def _wants_target(message: Message) -> bool:
    return message.reply_to_message is not None or bool(
        message.entities and any(e.type != MessageEntityType.BOT_COMMAND for e in message.entities)
    )


async def storyteller_command(
    message: Message, bot: Bot, store: Store, chat_settings: ChatSettings, profile: Profile
) -> None:
    chat = message.chat
    d6 = profile.system is GameSystem.D6  # the d6 texts call the role «сценарист»
    if chat.type == ChatType.PRIVATE:
        await message.answer(view.storyteller_group_only_text())
        return
    current = chat_settings.storyteller_id
    current_name = chat_settings.storyteller_name or "?"
    if is_anonymous(message):
        flow = await store.create_flow(ClaimState(expected=current), chat.id, 0)
        text = (
            view.storyteller_anonymous_text(d6=d6)
            if current is None
            else view.storyteller_takeover_text(current_name, d6=d6)
        )
        markup = view.claim_keyboard(flow.id, flow.version, takeover=current is not None, d6=d6)
        await message.answer(text, reply_markup=markup)
        return
    user = message.from_user
    if user is None or message.sender_chat is not None:
        await message.answer(view.storyteller_admins_only_text(d6=d6))
        return
    if current == user.id:
        await _pass_role(message, store, user, d6=d6)
        return
    if not await is_chat_admin(bot, chat.id, user.id):
        text = (
            view.storyteller_admins_only_text(d6=d6)
            if current is None
            else view.storyteller_current_text(current_name, d6=d6)
        )
        await message.answer(text)
        return
    if current is None:
        updated = await store.set_storyteller(
            chat.id,
            expected=None,
            new_id=user.id,
            name=user.first_name,
            title=store.at(chat.id).titled(_chat_title(chat)),
        )
        text = (
            view.storyteller_changed_text(d6=d6)
            if updated is None
            else view.storyteller_set_text(user.first_name, d6=d6)
        )
        await message.answer(text)
        return
    flow = await store.create_flow(ClaimState(expected=current), chat.id, user.id)
    await message.answer(
        view.storyteller_takeover_text(current_name, d6=d6),
        reply_markup=view.claim_keyboard(flow.id, flow.version, takeover=True, d6=d6),
    )


async def _pass_role(message: Message, store: Store, user: User, *, d6: bool) -> None:
    """The Storyteller's ``/st``: to a replied-to player it hands the role over; alone it
    only says who runs the game."""
    target = _target(message)
    if target is None:
        if _wants_target(message):
            await message.answer(view.storyteller_target_problem_text())
        else:
            await message.answer(view.storyteller_already_text(d6=d6))
        return
    if target.id == user.id:
        await message.answer(view.storyteller_already_text(d6=d6))
        return
    updated = await store.set_storyteller(
        message.chat.id,
        expected=user.id,
        new_id=target.id,
        name=target.first_name,
        title=store.at(message.chat.id).titled(_chat_title(message.chat)),
    )
    if updated is None:
        await message.answer(view.storyteller_changed_text(d6=d6))
        return
    await message.answer(
        view.storyteller_passed_text(user.first_name, target.first_name, d6=d6),
    )
