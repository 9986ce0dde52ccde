"""The one-message wizard behind ``/ext``, ``/team``, ``/vs`` and ``/multi`` typed bare.

docs/product.md §2: every command also works without arguments, as an inline keyboard in one
message edited in place. The player picks the pool (1–15), the difficulty and, when the
roll asks for one, the target (the number of successes, §A.11; optional for teamwork,
§A.13), sees the odds of one roll, and presses «Бросить»: the same message then becomes the
roll it was opened for, exactly as if the line had been typed. Which rolls those are is
declared by their features (:class:`bot.wizard.WizardTarget`); this one imports none.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.types import Message

from bot import runner
from bot.features import FeatureSet
from bot.wizard import target_key
from handlers.wizard import view
from handlers.wizard.flow import SetupState
from handlers.wizard.tap import TAP
from rules.profiles import Profile
from table.store import FlowState, Store


def make_router() -> Router:
    router = Router(name="wizard")
    runner.register(router, TAP)
    return router


async def open_wizard(
    message: Message,
    store: Store,
    profile: Profile,
    target: str,
    roller: str,
    *,
    carry: FlowState | None = None,
    opponent: str | None = None,
    features: FeatureSet,
) -> None:
    """The wizard for ``target`` in a new message (:data:`bot.wizard.OPEN_WIZARD`)."""
    found = features.handoff(target_key(target))
    user = message.from_user
    state = SetupState(
        target_name=target,
        mode=found.mode(profile),
        roller=roller,
        difficulty=profile.default_difficulty,
        carry=None if carry is None else carry.model_dump_json(),
        opponent=opponent,
    )
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    text, markup = view.draw(flow, state, found, profile)
    await message.answer(text, reply_markup=markup)
