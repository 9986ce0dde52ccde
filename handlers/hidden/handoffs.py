"""What the hidden rolls serve other features: the same hidden roll as ``/h``, asked by the
Storyteller's screen with a few taps (``bot.hidden_rolls.HIDDEN_ROLL``)."""

from __future__ import annotations

from collections.abc import Callable

from bot import render, rolling
from bot.hidden_rolls import HiddenAsk
from handlers.hidden import router, view
from rules.difficulty import check_base
from rules.errors import RulesInputError
from table import fairness


async def roll_for(ask: HiddenAsk) -> Callable[[], str] | None:
    """Roll ``ask`` in secret: None once the Storyteller has the result and the campaign the
    commitment, else why not (a sheet without the traits, a private chat refused)."""
    rng = fairness.kept_secret(ask.rng, ask.store.scope.journal)
    who = rolling.Roller(ask.chat_id, ask.user_id, ask.name, npc=ask.npc)
    profile = ask.profile
    try:
        resolved = await rolling.resolve_pool(ask.store, who, profile, traits=ask.traits)
        check_base(ask.difficulty, profile)
        harder = resolved.difficulty(ask.difficulty, profile, 0)
        result = rolling.roll_d10(
            resolved.dice, harder.difficulty, profile, threshold=harder.threshold, rng=rng
        )
    except rolling.PoolRefused as refused:
        said = refused.text
        return lambda: said
    except RulesInputError as error:
        field = error.field
        return lambda: render.range_problem_text(field, profile, command="h")
    note = view.hidden_npc_note(ask.name, resolved.source)
    rolled = (resolved.dice, result, note)
    delivered = await router.roll_hidden(
        ask.bot, ask.store, ask.chat_id, ask.title, ask.storyteller, rolled, profile, ask.session
    )
    if delivered:
        return None
    name = ask.storyteller.first_name
    return lambda: view.no_private_chat_text(name)
