"""A combat round as the table walks it (§B.1–§B.2): who is in, who declares, who acts.

The bot keeps one :class:`Round` per chat and moves it with the pure steps below, so what a
tap may do is decided here and tested without Telegram. Phase I is :func:`join` (each
participant rolls «Ловкость + Смекалка + бросок одного d10»); phase II walks the
declarations «по порядку возрастания инициативы» (:func:`declare`, where a character may
also declare several actions, §A.9); phases III–IV walk :func:`build_turn_schedule` in
descending order (:func:`advance`, :func:`delay`); phase V is :func:`new_round`, where
everyone rolls again, as the Revised and Dark Ages texts do each turn.

A participant who joins after phase I of this round waits for the next one: the order of a
round is fixed once declarations begin, so a late arrival never reshuffles who already
declared.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from rules.combat.holds import StandUp
from rules.combat.initiative import (
    Combatant,
    Initiative,
    Slot,
    build_turn_schedule,
    declaration_order,
    delay_action,
    initiative,
    initiative_order,
)
from rules.combat.limits import TRAIT_MAX
from rules.combat.situation import Condition
from rules.dice import Rng
from rules.errors import (
    ErrorCode,
    RulesInputError,
    check_int,
    check_mapping,
    check_type,
    parse_enum,
)
from rules.profiles import CombatOptions
from rules.vampire import celerity_actions

MAX_FIGHTERS = 24  # a tracker message stays far below Telegram's 4096 characters
MAX_ACTIONS = 5  # §A.9 multiple actions: more than five is a typo, not a plan
NAME_MAX = 32


class Phase(StrEnum):
    """Where the round stands (§B.2): gathering initiative, declaring, resolving, over."""

    GATHER = "gather"
    DECLARE = "declare"
    RESOLVE = "resolve"
    DONE = "done"


class Fighter(BaseModel):
    """One participant: a player's character (``user_id``) or an NPC (``user_id`` None)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    name: str
    user_id: int | None = None
    dex_wits: int
    die: int
    modifier: int = 0
    actions: int = 1
    waiting: bool = False  # joined after declarations began: acts from the next round
    conditions: tuple[Condition, ...] = ()
    # §B.3 step 2 «неразыгранный заявленный защитный манёвр»: how many of the declared
    # actions are defences (the last ones), and how many of them attacks have used up.
    defences: int = 0
    defended: int = 0
    # §B.11 «контужен и пропускает текущий и следующий ход»: the last round number the
    # stun takes (0: not stunned).
    stunned_through: int = 0
    # §A.7 S0 «Вы можете сделать это только один раз за ход»: the round number in which the
    # fighter last spent a point of Willpower (0: never).
    willpower_round: int = 0
    # §B.13 Celerity («Стремительность»): its dots as the sheet had them when the fighter
    # joined (the tracker offers it), and the extra actions bought with blood this round —
    # on top of the declared ones, at full pools, acted after them.
    celerity: int = 0
    hastened: int = 0
    # §B.13: a vampire (from the sheet when they joined), and whether they lie in torpor
    # (their track at «Без Сознания», set from the health the tracker reads): passed over.
    vampire: bool = False
    torpor: bool = False

    @property
    def score(self) -> int:
        return self.dex_wits + self.die + self.modifier

    @property
    def npc(self) -> bool:
        return self.user_id is None


class Round(BaseModel):
    """A chat's fight between taps: stored whole, changed only by the functions below."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int = 1
    phase: Phase = Phase.GATHER
    fighters: tuple[Fighter, ...] = ()
    order: tuple[str, ...] = ()  # resolution order (phase III), fixed when declaring begins
    declared: int = 0  # how many of the declaration order have declared
    schedule: tuple[tuple[str, int], ...] = ()  # phases III–IV: (key, action number)
    step: int = 0

    def fighter(self, key: str) -> Fighter | None:
        return next((f for f in self.fighters if f.key == key), None)

    def spent_willpower(self, key: str) -> bool:
        """Whether ``key`` already spent a point of Willpower this round (§A.7)."""
        fighter = self.fighter(key)
        return fighter is not None and fighter.willpower_round == self.number

    def stunned(self, key: str) -> bool:
        """Whether ``key`` is stunned this round (§B.11): their actions are skipped, however
        the stun came — counted from a wound, or the «Контузия» the Storyteller set by hand
        (which stays until taken off)."""
        fighter = self.fighter(key)
        if fighter is None:
            return False
        return fighter.stunned_through >= self.number or Condition.STUNNED in fighter.conditions

    def out(self, key: str) -> bool:
        """Whether ``key`` takes no action this round: stunned (§B.11) or a vampire in torpor
        (§B.13)."""
        fighter = self.fighter(key)
        return self.stunned(key) or (fighter is not None and fighter.torpor)

    def has_defence(self, key: str) -> bool:
        """A declared defensive manoeuvre not yet used against an attack (§B.3 step 2)."""
        fighter = self.fighter(key)
        return fighter is not None and fighter.defended < fighter.defences

    def skipped(self, slot: tuple[str, int]) -> bool:
        """A slot nobody acts in: a stunned fighter's, or a declared defence, which is
        rolled against an attack, not on its own turn."""
        key, number = slot
        fighter = self.fighter(key)
        if fighter is None or self.out(key):
            return True
        return fighter.actions - fighter.defences < number <= fighter.actions

    def hastened_action(self, slot: tuple[str, int]) -> bool:
        """Whether a slot is one of Celerity's extra actions (§B.13): after the declared ones,
        its pool whole (never split with them)."""
        fighter = self.fighter(slot[0])
        return fighter is not None and slot[1] > fighter.actions

    def ranked(self) -> tuple[Fighter, ...]:
        """Everyone as the tracker lists them: the round's order once fixed, else by score."""
        if self.order:
            placed = [f for k in self.order if (f := self.fighter(k)) is not None]
            rest = [f for f in self.fighters if f.key not in self.order]
            return (*placed, *sorted(rest, key=lambda f: (-f.score, -f.dex_wits)))
        return tuple(sorted(self.fighters, key=lambda f: (-f.score, -f.dex_wits, f.name)))

    def declarer(self) -> str | None:
        """Whose turn it is to declare (phase II), lowest initiative first."""
        if self.phase is not Phase.DECLARE:
            return None
        ascending = declaration_order(self.order)
        return ascending[self.declared] if self.declared < len(ascending) else None

    def actor(self) -> tuple[str, int] | None:
        """Who acts now (phases III–IV) and with which of their declared actions."""
        if self.phase is not Phase.RESOLVE or self.step >= len(self.schedule):
            return None
        return self.schedule[self.step]

    def acted(self, key: str) -> bool:
        """Whether ``key`` has resolved an action of this round already (phases III–IV)."""
        return any(k == key for k, _n in self.schedule[: self.step])

    def can_interrupt(self, key: str) -> bool:
        """S4 «Прерывание - отмена не разыгранных действий»: someone who has not acted yet
        this turn and still has a declared action waiting, while another acts."""
        actor = self.actor()
        if actor is None or actor[0] == key or self.acted(key) or self.out(key):
            return False
        return any(k == key for k, _n in self.schedule[self.step :])

    def can_delay(self) -> bool:
        """S4 «можно отложить заявленное действие»: only while someone later in the same
        pass has still to act, so the delayer still goes before them."""
        after = self.next_acting()
        if self.actor() is None or after is None:
            return False
        return self.schedule[after][1] == self.schedule[self.step][1]

    def next_acting(self) -> int | None:
        """The schedule's index of the next one who acts after the one acting now, passing
        over the slots nobody acts in (:meth:`skipped`)."""
        for index in range(self.step + 1, len(self.schedule)):
            if not self.skipped(self.schedule[index]):
                return index
        return None


def npc_key(name: str) -> str:
    return "n:" + " ".join(check_type(name, str, "name").split()).casefold()


def player_key(user_id: int) -> str:
    return f"u{check_int(user_id, 'user_id')}"


def _round(current: object) -> Round:
    return check_type(current, Round, "round")


def _key(key: object) -> str:
    return check_type(key, str, "key")


def join(
    current: Round,
    *,
    key: str,
    name: str,
    dex_wits: int,
    user_id: int | None = None,
    rng: Rng | None = None,
    face: int | None = None,
    modifier: int = 0,
) -> Round:
    """Phase I for one participant. Joining twice is refused (:class:`RulesInputError`
    ``E_STATE``); after phase I the newcomer waits for the next round. ``modifier`` carries
    what the table adds (the wound penalty when AMB-B1 is switched, −2 after standing up at
    once, §B.8)."""
    current, key = _round(current), _key(key)
    check_type(name, str, "name")
    check_int(dex_wits, "dex_wits", 0, 2 * TRAIT_MAX)
    check_int(modifier, "modifier", -20, 20)
    if user_id is not None:
        check_int(user_id, "user_id")
    if current.fighter(key) is not None:
        raise RulesInputError(ErrorCode.STATE, "key", "already in the round")
    if len(current.fighters) >= MAX_FIGHTERS:
        raise RulesInputError(ErrorCode.RANGE, "fighters", f"at most {MAX_FIGHTERS}")
    shown = " ".join(name.split())[:NAME_MAX]
    if not shown:
        raise RulesInputError(ErrorCode.RANGE, "name", "empty")
    rolled = _roll(dex_wits, rng, face)
    fighter = Fighter(
        key=key,
        name=shown,
        user_id=user_id,
        dex_wits=dex_wits,
        die=rolled.face,
        modifier=modifier,
        waiting=current.phase in (Phase.DECLARE, Phase.RESOLVE),
    )
    return current.model_copy(update={"fighters": (*current.fighters, fighter)})


def _roll(dex_wits: int, rng: Rng | None, face: int | None) -> Initiative:
    # ``initiative`` takes Dexterity and Wits apart; only their sum matters for the score
    # and the AMB-B1 tie-break, so it is split into two legal trait ratings.
    high = min(dex_wits, TRAIT_MAX)
    return initiative(high, dex_wits - high, face=face, rng=rng)


def leave(current: Round, key: str) -> Round:
    """A participant leaves (an NPC falls, a player steps out): their unresolved actions go."""
    current, key = _round(current), _key(key)
    if current.fighter(key) is None:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "key", key)
    fighters = tuple(f for f in current.fighters if f.key != key)
    update: dict[str, object] = {"fighters": fighters}
    if current.phase is Phase.DECLARE and key in current.order:
        ascending = declaration_order(current.order)
        already = ascending[: current.declared]
        update["order"] = tuple(k for k in current.order if k != key)
        update["declared"] = sum(1 for k in already if k != key)
    elif current.phase is Phase.RESOLVE:
        done = current.schedule[: current.step]
        rest = tuple(s for s in current.schedule[current.step :] if s[0] != key)
        update["order"] = tuple(k for k in current.order if k != key)
        update["schedule"] = done + rest
    result = current.model_copy(update=update)
    return _settle(result)


def start_declarations(
    current: Round, *, rng: Rng | None = None, options: CombatOptions | None = None
) -> Round:
    """From phase I to phase II: the order is fixed (ties per AMB-B1) and the lowest
    initiative declares first."""
    current = _round(current)
    if current.phase is not Phase.GATHER:
        raise RulesInputError(ErrorCode.STATE, "phase", current.phase.value)
    acting = [f for f in current.fighters if not f.waiting]
    if not acting:
        raise RulesInputError(ErrorCode.STATE, "fighters", "nobody rolled initiative")
    combatants = [Combatant(f.key, Initiative(f.score, f.dex_wits, f.die)) for f in acting]
    order = initiative_order(combatants, options, rng)
    return _settle(
        current.model_copy(
            update={"phase": Phase.DECLARE, "order": order, "declared": 0, "step": 0}
        )
    )


def declare(
    current: Round, key: str, *, actions: int | None = None, defence: bool = False
) -> Round:
    """The declarer is done (with ``actions`` actions, §A.9, if given); the next one is up,
    and after the last the schedule of phases III–IV is built. With ``defence`` the last
    declared action is a defensive manoeuvre (§B.4): it waits for an attack instead of a
    turn of its own, and lets its declarer defend without an Interruption."""
    current, key = _round(current), _key(key)
    if current.declarer() != key:
        raise RulesInputError(ErrorCode.STATE, "declarer", key)
    check_type(defence, bool, "defence")
    fighters = current.fighters
    if actions is not None:
        check_int(actions, "actions", 0, MAX_ACTIONS)
        fighters = tuple(
            f.model_copy(update={"actions": actions}) if f.key == key else f for f in fighters
        )
    if defence:
        fighters = tuple(
            f.model_copy(update={"defences": 1}) if f.key == key else f for f in fighters
        )
    return _settle(
        current.model_copy(update={"fighters": fighters, "declared": current.declared + 1})
    )


def more_actions(current: Round, key: str) -> Round:
    """The declarer declares one action more (§A.9: the pools shrink when rolled)."""
    current, key = _round(current), _key(key)
    fighter = current.fighter(key)
    if current.declarer() != key or fighter is None:
        raise RulesInputError(ErrorCode.STATE, "declarer", key)
    count = fighter.actions + 1
    if count > MAX_ACTIONS:
        raise RulesInputError(ErrorCode.RANGE, "actions", f"at most {MAX_ACTIONS}")
    fighters = tuple(
        f.model_copy(update={"actions": count}) if f.key == key else f for f in current.fighters
    )
    return current.model_copy(update={"fighters": fighters})


def with_vampire(current: Round, key: str, celerity: int) -> Round:
    """A vampire in the fight (§B.13), with their dots of Celerity as their sheet has them,
    so the tracker offers its extra actions on their declaration and knows their torpor."""
    current, key = _round(current), _key(key)
    check_int(celerity, "celerity", 0, 10)
    fighters = tuple(
        f.model_copy(update={"celerity": celerity, "vampire": True}) if f.key == key else f
        for f in current.fighters
    )
    return current.model_copy(update={"fighters": fighters})


def set_torpor(current: Round, torpid: frozenset[str]) -> Round:
    """§B.13: the vampires among ``torpid`` lie in torpor and are passed over (their
    declaration, their actions, an Interruption); the others are awake again."""
    current = _round(current)
    changed = tuple(
        f.model_copy(update={"torpor": f.vampire and f.key in torpid})
        if f.torpor != (f.vampire and f.key in torpid)
        else f
        for f in current.fighters
    )
    if changed == current.fighters:
        return current
    return _settle(current.model_copy(update={"fighters": changed}))


def hasten(current: Round, key: str, celerity: int, blood: int, generation: int | None) -> Round:
    """§B.13 Celerity on the declarer's turn: one extra action more this round for a point of
    blood (``blood``: the pool now, before it is paid), up to the Discipline's dots and the
    blood the Generation lets a turn spend (:func:`rules.vampire.celerity_actions`; its
    ``E_RANGE`` names which limit stopped it)."""
    current, key = _round(current), _key(key)
    fighter = current.fighter(key)
    if current.declarer() != key or fighter is None:
        raise RulesInputError(ErrorCode.STATE, "declarer", key)
    have = check_int(blood, "blood", 0, 100)
    wanted = fighter.hastened + 1
    celerity_actions(celerity, wanted, have + fighter.hastened, generation=generation)
    fighters = tuple(
        f.model_copy(update={"hastened": wanted}) if f.key == key else f for f in current.fighters
    )
    return current.model_copy(update={"fighters": fighters})


def _settle(current: Round) -> Round:
    """Move on when a phase has nobody left in it: a stunned declarer declares nothing and
    a skipped slot (:meth:`Round.skipped`) is passed over, so the tracker moves by itself."""
    while current.phase is Phase.DECLARE and (declarer := current.declarer()) is not None:
        if not current.out(declarer):
            break
        current = current.model_copy(update={"declared": current.declared + 1})
    if current.phase is Phase.DECLARE and current.declared >= len(current.order):
        actions = {
            k: f.actions + f.hastened
            for k in current.order
            if (f := current.fighter(k)) is not None
        }
        schedule = build_turn_schedule(current.order, actions)
        current = current.model_copy(
            update={
                "phase": Phase.RESOLVE,
                "schedule": tuple((s.actor, s.action) for s in schedule),
                "step": 0,
            }
        )
    step = current.step
    while current.phase is Phase.RESOLVE and step < len(current.schedule):
        if not current.skipped(current.schedule[step]):
            break
        step += 1
    if step != current.step:
        current = current.model_copy(update={"step": step})
    if current.phase is Phase.RESOLVE and current.step >= len(current.schedule):
        current = current.model_copy(update={"phase": Phase.DONE})
    return current


def advance(current: Round) -> Round:
    """«Дальше»: the acting character's action is resolved; the next one acts."""
    current = _round(current)
    if current.actor() is None:
        raise RulesInputError(ErrorCode.STATE, "phase", current.phase.value)
    return _settle(current.model_copy(update={"step": current.step + 1}))


def delay(current: Round) -> Round:
    """S4 «отложить заявленное действие»: the acting character lets the next one go first
    and acts right after them, still before everyone lower who has not acted."""
    current = _round(current)
    after = current.next_acting()
    if not current.can_delay() or after is None:
        raise RulesInputError(ErrorCode.STATE, "delay", "nobody later in this pass")
    slots = [Slot(k, n) for k, n in current.schedule]
    moved = delay_action(slots, current.step, after + 1)
    return _settle(
        current.model_copy(update={"schedule": tuple((s.actor, s.action) for s in moved)})
    )


def interrupt(current: Round, key: str) -> Round:
    """S4 «Прерывание - отмена не разыгранных действий в обмен на любой защитный манёвр»:
    the interrupter's declared actions are struck from the schedule and one defensive action
    is resolved now, before the one acting; the tracker shows them as having acted. Whether
    the Willpower roll or spend allows it is :func:`rules.combat.interruption_allowed`."""
    current, key = _round(current), _key(key)
    if not current.can_interrupt(key):
        raise RulesInputError(ErrorCode.STATE, "interrupt", key)
    done = current.schedule[: current.step]
    waiting = current.schedule[current.step :]
    first = next(n for k, n in waiting if k == key)
    rest = tuple(s for s in waiting if s[0] != key)
    return current.model_copy(
        update={"schedule": (*done, (key, first), *rest), "step": current.step + 1}
    )


def spend_willpower(current: Round, key: str) -> Round:
    """§A.7 S0 «Вы можете сделать это только один раз за ход»: the fight's round is the turn,
    so a second point in the same round is refused (``E_WP_ALREADY_THIS_TURN``), and the
    first is marked on the fighter. One not in the fight is left alone (their roll is no
    part of the round)."""
    current, key = _round(current), _key(key)
    if current.fighter(key) is None:
        return current
    if current.spent_willpower(key):
        raise RulesInputError(ErrorCode.WP_ALREADY_THIS_TURN, "willpower", key)
    fighters = tuple(
        f.model_copy(update={"willpower_round": current.number}) if f.key == key else f
        for f in current.fighters
    )
    return current.model_copy(update={"fighters": fighters})


def stand_up(current: Round, key: str, result: StandUp) -> Round:
    """§B.8 «Чтобы сразу подняться»: the one acting gets up from a knockdown. Up at once, they
    keep the action at −2 initiative; otherwise standing takes the whole action and the next
    one acts. Either way they are no longer prone."""
    current, key = _round(current), _key(key)
    check_type(result, StandUp, "result")
    actor = current.actor()
    fighter = current.fighter(key)
    if actor is None or actor[0] != key or fighter is None:
        raise RulesInputError(ErrorCode.STATE, "actor", key)
    if Condition.PRONE not in fighter.conditions:
        raise RulesInputError(ErrorCode.STATE, "conditions", "not knocked down")
    update: dict[str, object] = {
        "conditions": tuple(c for c in fighter.conditions if c is not Condition.PRONE)
    }
    if result.stood:
        update["modifier"] = fighter.modifier + result.initiative_modifier
    fighters = tuple(f.model_copy(update=update) if f.key == key else f for f in current.fighters)
    after = current.model_copy(update={"fighters": fighters})
    return advance(after) if result.action_spent else after


def new_round(
    current: Round,
    *,
    rng: Rng | None = None,
    options: CombatOptions | None = None,
    dex_wits: Mapping[str, int] | None = None,
    modifiers: Mapping[str, int] | None = None,
) -> Round:
    """Phase V into phase I again: everyone (the waiting included) rolls a new die, keeps
    their Dexterity + Wits unless ``dex_wits`` brings a changed sheet (and ``modifiers``
    anew, else none), and declares anew;
    one action each unless declared otherwise. A stun taken by :func:`stun` lasts its two
    rounds here; the Storyteller's «Контузия» condition lasts until taken off."""
    current = _round(current)
    if not current.fighters:
        raise RulesInputError(ErrorCode.STATE, "fighters", "nobody in the fight")
    fresh = check_mapping(dex_wits, "dex_wits") if dex_wits is not None else {}
    adds = check_mapping(modifiers, "modifiers") if modifiers is not None else {}
    fighters: list[Fighter] = []
    for f in current.fighters:
        base = check_int(fresh.get(f.key, f.dex_wits), "dex_wits", 0, 2 * TRAIT_MAX)
        rolled = _roll(base, rng, None)
        fighters.append(
            f.model_copy(
                update={
                    "dex_wits": base,
                    "die": rolled.face,
                    "modifier": check_int(adds.get(f.key, 0), "modifier", -20, 20),
                    "actions": 1,
                    "waiting": False,
                    "defences": 0,
                    "defended": 0,
                    "hastened": 0,
                }
            )
        )
    gathered = Round(number=current.number + 1, fighters=tuple(fighters))
    return start_declarations(gathered, rng=rng, options=options)


def knock_down(current: Round, key: str) -> Round:
    """§B.8 «Нокдаун: противник падает»: a hit of a knocking manoeuvre (Толчок, Подсечка)
    puts the target on the ground; one already down stays down (nothing changes)."""
    current, key = _round(current), _key(key)
    fighter = current.fighter(key)
    if fighter is None or Condition.PRONE in fighter.conditions:
        return current
    return toggle_condition(current, key, Condition.PRONE)


def toggle_condition(current: Round, key: str, condition: Condition | str) -> Round:
    """Put a §B.8 condition on a participant or take it off (the Storyteller's call)."""
    current, key = _round(current), _key(key)
    condition = parse_enum(Condition, condition, "condition")
    fighter = current.fighter(key)
    if fighter is None:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "key", key)
    have = fighter.conditions
    changed = (
        tuple(c for c in have if c is not condition)
        if condition in have
        else tuple(c for c in Condition if c in have or c is condition)
    )
    fighters = tuple(
        f.model_copy(update={"conditions": changed}) if f.key == key else f
        for f in current.fighters
    )
    # a stun set by hand skips the fighter at once, as a counted one does (§B.11)
    return _settle(current.model_copy(update={"fighters": fighters}))


def resolved(current: Round, key: str) -> Round:
    """The action of ``key`` is resolved (an attack on the panel): when it was the one
    acting, the next one acts, with no «Дальше» to tap; otherwise nothing changes."""
    current, key = _round(current), _key(key)
    actor = current.actor()
    if actor is None or actor[0] != key:
        return current
    return advance(current)


def use_defence(current: Round, key: str) -> Round:
    """A declared defensive manoeuvre meets an attack (§B.3 step 2): it is used up."""
    current, key = _round(current), _key(key)
    fighter = current.fighter(key)
    if fighter is None or not current.has_defence(key):
        raise RulesInputError(ErrorCode.STATE, "defence", key)
    fighters = tuple(
        f.model_copy(update={"defended": f.defended + 1}) if f.key == key else f
        for f in current.fighters
    )
    return current.model_copy(update={"fighters": fighters})


def stun(current: Round, key: str, *, stunned: bool = True) -> Round:
    """§B.11 «контужен и пропускает текущий и следующий ход»: the fighter's actions of this
    round and the next are skipped (``stunned`` False takes it back: the soak saved them).
    One not in the fight is left alone."""
    current, key = _round(current), _key(key)
    check_type(stunned, bool, "stunned")
    if current.fighter(key) is None:
        return current
    through = current.number + 1 if stunned else 0
    fighters = tuple(
        f.model_copy(update={"stunned_through": through}) if f.key == key else f
        for f in current.fighters
    )
    return _settle(current.model_copy(update={"fighters": fighters}))
