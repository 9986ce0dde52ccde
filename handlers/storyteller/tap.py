"""«Я Рассказчик» / «Забрать роль» as one pure step (bot/runner.py): the presser's real id,
checked, becomes the role's.

Whether the presser is a chat administrator is asked of Telegram before the step, and only
when the step would ask (:func:`read`). The step hands the claim over: the role moves and the
claim closes in one compare-and-set of the chat's settings and the claim's flow
(``Store.claim_storyteller``), so of two claims at once exactly one wins and the other says
the role changed meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.access import is_chat_admin
from bot.runner import Actor, Drawn, Handoff, HandOver, Known, Outcome, Reading, Tap, refuse
from handlers.storyteller import view
from handlers.storyteller.callbacks import StCallback
from handlers.storyteller.flow import ClaimState
from rules.dice import Rng
from rules.profiles import GameSystem
from table.store import Flow, Screen, Store


@dataclass(frozen=True)
class Claimant:
    """What the chat knows of the presser: a chat administrator or not, and the chat's title
    (kept with the chat's settings when the role moves)."""

    admin: bool
    title: str


async def read(reading: Reading[ClaimState, StCallback]) -> Claimant:
    chat, user, flow = reading.message.chat, reading.presser, reading.flow
    title = reading.store.at(chat.id).titled(chat.title or str(chat.id))
    asks = flow.owner_id in (0, user.id) and reading.state.expected != user.id
    if not asks or reading.bot is None:
        return Claimant(admin=False, title=title)
    return Claimant(admin=await is_chat_admin(reading.bot, chat.id, user.id), title=title)


def step(
    state: ClaimState, action: StCallback, actor: Actor, known: Known[Claimant], rng: Rng | None
) -> Outcome[ClaimState]:
    d6 = known.profile.system is GameSystem.D6
    if known.flow.owner_id not in (0, actor.id):
        return refuse(view.not_for_you_text)
    if state.expected == actor.id:
        return refuse(lambda: view.storyteller_already_text(d6=d6))
    if not known.read.admin:
        return refuse(lambda: view.storyteller_admins_only_text(d6=d6))
    return HandOver(_take(state, actor, known.read.title, d6))


def _take(state: ClaimState, actor: Actor, title: str, d6: bool) -> Handoff:
    """The role moved and the claim closed in one compare-and-set (the chat's settings and
    the claim's flow share the chat's slot); the message says how it went."""

    async def take(store: Store, flow: Flow) -> Drawn | None:
        won = view.storyteller_set_text(actor.name, d6=d6)
        lost = view.storyteller_changed_text(d6=d6)
        moved = await store.claim_storyteller(
            flow,
            expected=state.expected,
            new_id=actor.id,
            name=actor.name,
            title=title,
            won=Screen(text=won),
            lost=Screen(text=lost),
        )
        if moved is None:
            return None
        return (won if moved else lost), None

    return take


TAP: Tap[ClaimState, StCallback, Claimant] = Tap(
    model=ClaimState,
    callback=StCallback,
    step=step,
    view=None,  # its only step hands the message over
    system=None,
    current_only=True,
    read=read,
)
