"""What the roll requests serve other features: a roll asked of one player, as ``/ask`` asks
the table (``bot.roll_requests.ASK_ROLL``, the Storyteller's screen)."""

from __future__ import annotations

from aiogram.utils.i18n import get_i18n

from bot.roll_requests import Asked, RollAsk
from handlers.requests import view
from handlers.requests.flow import RequestState
from handlers.requests.router import parse_request
from rules.errors import RulesInputError
from rules.profiles import GameSystem
from rules.sheet import system_of
from table.traits import TraitNameError


async def ask_player(ask: RollAsk) -> Asked:
    """Post the request in the campaign, addressed to the player: its flow id, or why not."""
    profile = ask.profile
    if profile.system is not GameSystem.D10:
        return view.ask_d10_only_text
    try:
        codes, difficulty = parse_request(f"{ask.traits} {ask.difficulty}", profile)
    except (TraitNameError, RulesInputError):
        return view.ask_hint_text
    state = RequestState(
        system=system_of(profile),
        codes=tuple(c.value for c in codes),
        difficulty=difficulty,
        asker=ask.asker,
        only=ask.user_id,
        only_name=ask.name,
    )
    flow = await ask.store.create_flow(state, ask.chat_id, ask.asker_id)
    i18n = get_i18n()
    shown = ask.locale or flow.locale or i18n.current_locale
    with i18n.use_locale(shown):
        text = view.request_text(state, codes, shown, profile, closed=False)
        markup = view.request_keyboard(flow.id, one=True)
    # Posted in the request's campaign: a topic's when the screen asks in one.
    await ask.bot.send_message(
        flow.chat_id, text, reply_markup=markup, message_thread_id=flow.thread_id
    )
    return flow.id
