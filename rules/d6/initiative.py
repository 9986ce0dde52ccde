"""Initiative of the d6 system: docs/rules.md §D.7–§D.8 (S3 «Инициатива», «Подготовка», «Порядок
действий», «Безынициативность»).

Initiative is spent, not compared once: every participant rolls Расторопность d6, and every
action — attack, defence, a step aside — sets one die aside (S3 «для каждого действия нужно
отложить кубик инициативы»). A round is therefore a frozen :class:`Round` value, and the bot
drives a live tracker with pure step functions: :func:`act`, :func:`hold`, :func:`defend`,
:func:`end_round`, :func:`next_round`. After every step the next actor is decided again
(AMB-D5) and stored in ``Round.up``, so a coin flip (S3 «бросьте кубик на чёт-нечет») is made
once and the tracker shows the same actor until something changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from rules.d6.chance import Difficulty, DifficultyKind, _Frozen, options
from rules.dice import Rng, roll_faces, system_rng
from rules.errors import ErrorCode, RulesInputError, check_bool, check_int, check_ints
from rules.profiles import Profile

ALACRITY_MAX = 20
HERO_ALACRITY = 3  # S3 «У персонажей игроков она равна 3.»
PREPARATION_CAP = 6  # S3 «(максимум до 6!)»


class Combatant(_Frozen):
    """Who takes part: S3 «Противники, опасности и союзники точно так же участвуют».

    ``hero`` and ``weakness`` only matter for inactivity (§D.8): heroes are put on edge by their
    weakness, supporting characters by 3.
    """

    id: str
    alacrity: int = HERO_ALACRITY
    hero: bool = False
    weakness: int | None = None


class Fighter(_Frozen):
    """One combatant's dice this round; ``remaining`` is kept in descending order."""

    sheet: Combatant
    remaining: tuple[int, ...]
    aside: tuple[int, ...] = ()
    holding: bool = False
    acted: bool = False


class StepKind(StrEnum):
    ACT = "act"  # any action, attack or not: one die aside
    HOLD = "hold"  # выжидание: the die stays for later
    DEFEND = "defend"  # ответное действие: the highest die aside


class Step(_Frozen):
    """One entry of the round's log; ``responds_to`` is the index of the attacked step."""

    actor: str
    kind: StepKind
    value: int | None = None
    was_holder: bool = False
    responds_to: int | None = None
    attack: bool | None = None  # ACT steps only: an attack (or manoeuvre) or another action


class Turn(_Frozen):
    """Whose turn it is, at which value, and who was in the coin flip if it came to that."""

    actor: str
    value: int
    coin_flip: tuple[str, ...] = ()


class Round(_Frozen):
    number: int = 1
    fighters: tuple[Fighter, ...]
    waiting_forbidden: bool = False  # S3 «в следующем раунде все они не могут выжидать»
    up: Turn | None = None
    log: tuple[Step, ...] = ()


class Preparation(_Frozen):
    dice: tuple[int, ...]
    wasted: int


class Eligibility(_Frozen):
    """Whether a defender can respond and how slow they are (S3 «неспешный»)."""

    allowed: bool
    slowness: int
    die: int | None


class RoundEnd(_Frozen):
    """Inactivity (§D.8): the «на взводе» wounds and whether holding is banned next round."""

    inactive: bool
    wounds: dict[str, Difficulty]
    waiting_forbidden: bool


def _check_dice(dice: object, field: str, count: int | None = None) -> tuple[int, ...]:
    if isinstance(dice, (str, bytes)) or not isinstance(dice, Sequence):
        raise RulesInputError(ErrorCode.TYPE, field, "expected a sequence of int")
    if count is not None and len(dice) != count:
        raise RulesInputError(ErrorCode.FACES_LEN, field, f"{len(dice)} dice for {count}")
    for i, f in enumerate(dice):
        check_int(f, f"{field}[{i}]")
        if not 1 <= f <= 6:
            raise RulesInputError(ErrorCode.FACE_VALUE, f"{field}[{i}]", f"{f} is not a d6 face")
    return tuple(dice)


def apply_preparation(
    dice: Sequence[int],
    gain: int,
    plan: Sequence[tuple[int, int]] | None = None,
    profile: Profile | None = None,
) -> Preparation:
    """Raise initiative dice by a preparation gain (S3 «Подготовка»).

    S3 «Выигрыш отражает количество единиц, на которые герой может увеличить значение, выпавшее на
    любом из кубиков инициативы (максимум до 6!)». ``plan`` is (die index, +k) pairs chosen by the
    player; it may split the gain (AMB-D4) and anything above 6 or left unplanned is wasted.
    Without a plan, [P] greedy: make as many sixes as possible from the highest dice, then put the
    rest on the highest die that is not a six.
    """
    faces = list(_check_dice(dice, "dice"))
    check_int(gain, "gain", 0, 100)
    split = options(profile).preparation_split
    if plan is not None:
        if isinstance(plan, (str, bytes)) or not isinstance(plan, Sequence):
            raise RulesInputError(ErrorCode.TYPE, "plan", "expected (index, +k) pairs")
        if len(plan) > 1 and not split:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, "plan", "the gain goes on one die")
        spent = 0
        wasted = 0
        for n, pair in enumerate(plan):
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise RulesInputError(ErrorCode.TYPE, f"plan[{n}]", "expected (index, +k)")
            i = check_int(pair[0], f"plan[{n}].index", 0, len(faces) - 1)
            k = check_int(pair[1], f"plan[{n}].plus", 1, gain)
            spent += k
            raised = faces[i] + k
            wasted += max(0, raised - PREPARATION_CAP)
            faces[i] = min(PREPARATION_CAP, raised)
        if spent > gain:
            raise RulesInputError(ErrorCode.RANGE, "plan", f"{spent} planned, gain {gain}")
        return Preparation(dice=tuple(faces), wasted=wasted + gain - spent)
    order = sorted(range(len(faces)), key=lambda i: -faces[i])
    left = gain
    if split:
        for i in order:
            need = PREPARATION_CAP - faces[i]
            if 0 < need <= left:
                faces[i] = PREPARATION_CAP
                left -= need
    for i in order:
        if left and faces[i] < PREPARATION_CAP:
            used = min(left, PREPARATION_CAP - faces[i])
            faces[i] += used
            left -= used
            break
    return Preparation(dice=tuple(faces), wasted=left)


def _tie_key(f: Fighter, value: int, width: int) -> tuple[int, tuple[int, ...]]:
    """S3 «первым действует тот, у кого больше кубиков со значением 6 …», then «у кого более
    высокое значение на любом другом кубике (включая отложенные)»: [P] AMB-D5 compares the
    participant's other dice, set-aside ones included, from the highest down, padded with 0."""
    count = f.remaining.count(value)
    others = sorted([d for d in f.remaining if d != value] + list(f.aside), reverse=True)
    return count, tuple(others + [0] * (width - len(others)))


def _decide(state: Round, rng: Rng | None) -> Round:
    ready = [f for f in state.fighters if f.remaining and not f.holding]
    if not ready:
        return state.model_copy(update={"up": None})
    value = max(f.remaining[0] for f in ready)
    tier = [f for f in ready if f.remaining[0] == value]
    width = max(len(f.remaining) + len(f.aside) for f in tier)
    keys = {f.sheet.id: _tie_key(f, value, width) for f in tier}
    best = max(keys.values())
    top = [f.sheet.id for f in tier if keys[f.sheet.id] == best]
    if len(top) == 1:
        return state.model_copy(update={"up": Turn(actor=top[0], value=value)})
    source = rng if rng is not None else system_rng()
    pick = source.randint(1, len(top)) - 1
    return state.model_copy(update={"up": Turn(actor=top[pick], value=value, coin_flip=tuple(top))})


def start_round(
    combatants: Sequence[Combatant],
    *,
    faces: Mapping[str, Sequence[int]] | None = None,
    rng: Rng | None = None,
    number: int = 1,
    waiting_forbidden: bool = False,
) -> Round:
    """Roll (or take) every combatant's initiative dice and decide who acts first.

    S3 «каждый участник сцены бросает равное расторопности количество кубиков». ``faces`` gives
    physical dice by id (each must match the alacrity); missing ids are rolled with ``rng``.
    """
    if isinstance(combatants, (str, bytes)) or not isinstance(combatants, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "combatants", "expected a sequence of Combatant")
    check_int(number, "number", 1)
    check_bool(waiting_forbidden, "waiting_forbidden")
    given = faces if faces is not None else {}
    if not isinstance(given, Mapping):
        raise RulesInputError(ErrorCode.TYPE, "faces", "expected a mapping id -> dice")
    ids = set()
    fighters = []
    for i, c in enumerate(combatants):
        if not isinstance(c, Combatant):
            raise RulesInputError(ErrorCode.TYPE, f"combatants[{i}]", "expected Combatant")
        check_int(c.alacrity, f"combatants[{i}].alacrity", 1, ALACRITY_MAX)
        if c.weakness is not None:
            check_int(c.weakness, f"combatants[{i}].weakness", 1, 5)
        if c.id in ids:
            raise RulesInputError(ErrorCode.STATE, f"combatants[{i}].id", "duplicate id")
        ids.add(c.id)
        if c.id in given:
            dice = _check_dice(given[c.id], f"faces[{c.id}]", c.alacrity)
        else:
            dice = tuple(roll_faces(c.alacrity, 6, rng))
        fighters.append(Fighter(sheet=c, remaining=tuple(sorted(dice, reverse=True))))
    unknown = set(given) - ids
    if unknown:
        names = sorted(map(repr, unknown))
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "faces", f"no combatant {names}")
    if not fighters:
        raise RulesInputError(ErrorCode.RANGE, "combatants", "nobody takes part")
    state = Round(number=number, fighters=tuple(fighters), waiting_forbidden=waiting_forbidden)
    return _decide(state, rng)


def _index(state: Round, fighter: str) -> int:
    if not isinstance(state, Round):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected Round")
    for i, f in enumerate(state.fighters):
        if f.sheet.id == fighter:
            return i
    raise RulesInputError(ErrorCode.UNKNOWN_KEY, "fighter", f"{fighter!r} is not in this round")


def _replace(state: Round, i: int, fighter: Fighter, step: Step, rng: Rng | None) -> Round:
    fighters = (*state.fighters[:i], fighter, *state.fighters[i + 1 :])
    return _decide(state.model_copy(update={"fighters": fighters, "log": (*state.log, step)}), rng)


def prepare(
    state: Round,
    fighter: str,
    gain: int,
    plan: Sequence[tuple[int, int]] | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> Round:
    """Apply a preparation gain to ``fighter``'s dice before anyone has acted (§D.7).

    ``plan`` indices refer to ``remaining`` as stored (highest first).
    """
    i = _index(state, fighter)
    if state.log:
        raise RulesInputError(ErrorCode.STATE, "state", "preparation comes before the first step")
    f = state.fighters[i]
    prepared = apply_preparation(f.remaining, gain, plan, profile)
    new = f.model_copy(update={"remaining": tuple(sorted(prepared.dice, reverse=True))})
    fighters = (*state.fighters[:i], new, *state.fighters[i + 1 :])
    return _decide(state.model_copy(update={"fighters": fighters}), rng)


def act(state: Round, fighter: str, rng: Rng | None = None, *, attack: bool = True) -> Round:
    """``fighter`` acts and sets aside their highest die (§D.7, §D.9).

    Allowed for the fighter who is up, and for a holder at any moment (S3 «Выжидающий с более
    высокой инициативой вправе в любой момент заявить действие атаки или защиты. Чтобы
    предпринять его, придётся отложить кубик инициативы с максимальным имеющимся значением»).
    A holder cannot cut into an attack already declared; in this state machine steps never
    overlap, so that is kept by the bot calling :func:`act` only between steps. «С более высокой
    инициативой» is read as: the holder's highest die is at least the value now up; and since the
    text names only «действие атаки или защиты», a holder cuts in with anything else
    (``attack=False``: movement, aiming…) only once nobody is up. Acting ends holding; the fighter
    rejoins the order with the dice left.
    """
    i = _index(state, fighter)
    f = state.fighters[i]
    up = state.up.actor if state.up is not None else None
    if not f.remaining:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "fighter", "no initiative dice left")
    if fighter != up and not f.holding:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "fighter", "not this fighter's turn")
    check_bool(attack, "attack")
    cutting_in = f.holding and state.up is not None and fighter != up
    if cutting_in and state.up is not None and f.remaining[0] < state.up.value:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "fighter", "the holder's initiative is lower")
    if cutting_in and not attack:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "attack", "a holder cuts in only to attack")
    value = f.remaining[0]
    new = f.model_copy(
        update={
            "remaining": f.remaining[1:],
            "aside": (*f.aside, value),
            "holding": False,
            "acted": True,
        }
    )
    step = Step(actor=fighter, kind=StepKind.ACT, value=value, was_holder=f.holding, attack=attack)
    return _replace(state, i, new, step, rng)


def hold(state: Round, fighter: str, rng: Rng | None = None) -> Round:
    """Выжидание (§D.8): S3 «он вправе не откладывать кубик инициативы, а сохранить его на
    потом». Only the fighter who is up may start holding; not after a round of inactivity."""
    i = _index(state, fighter)
    if state.up is None or state.up.actor != fighter:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "fighter", "not this fighter's turn")
    if state.waiting_forbidden:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "fighter", "holding is forbidden this round")
    f = state.fighters[i]
    step = Step(actor=fighter, kind=StepKind.HOLD, value=f.remaining[0])
    return _replace(state, i, f.model_copy(update={"holding": True}), step, rng)


def defend_eligibility(
    attacker_value: int, attacker_was_holder: bool, defender_dice: Sequence[int]
) -> Eligibility:
    """May a defender respond, and with what slowness (§D.9)?

    S3: a defender with a die «с таким же значением, что и у атакующего, или выше» defends at no
    cost; a lower one «сталкивается с трудностью неспешный. Её масштаб равен разнице между
    инициативой нападающего и инициативой защищающегося». Against a holder's action «считается,
    что у них одинаковая инициатива». With no die left only armour remains (§D.10).
    """
    check_int(attacker_value, "attacker_value", 1, 6)
    check_bool(attacker_was_holder, "attacker_was_holder")
    dice = _check_dice(defender_dice, "defender_dice")
    if not dice:
        return Eligibility(allowed=False, slowness=0, die=None)
    top = max(dice)
    slow = 0 if attacker_was_holder else max(0, attacker_value - top)
    return Eligibility(allowed=True, slowness=slow, die=top)


class Defence(_Frozen):
    """A defence declared in a round: the die set aside and the «неспешный» difficulty, if any."""

    defender: str
    die: int
    slowness: int
    difficulty: Difficulty | None


def defend(
    state: Round,
    defender: str,
    *,
    protecting: str | None = None,
    attacker: str | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> tuple[Round, Defence]:
    """``defender`` responds to the latest action of the round (§D.9), or to ``attacker``'s
    latest one: an attack answered on its own message after the round went on.

    S3 «Вне зависимости от того, было ли действие успешным, тот, кто защищается, откладывает
    кубик инициативы с максимальным имеющимся значением». [P] AMB-D7: one response per attack
    per character. ``protecting`` names a teammate being defended; a slow defence of others is
    the profile's AMB-D8 switch. A holder keeps holding after a defence: it was not their turn.
    """
    i = _index(state, defender)
    attack_at = next(
        (
            n
            for n in range(len(state.log) - 1, -1, -1)
            if state.log[n].kind is StepKind.ACT
            and (attacker is None or state.log[n].actor == attacker)
        ),
        None,
    )
    if attack_at is None:
        raise RulesInputError(ErrorCode.STATE, "state", "no action to respond to")
    attack = state.log[attack_at]
    if attack.actor == defender:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "defender", "cannot defend against oneself")
    if any(s.responds_to == attack_at and s.actor == defender for s in state.log):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "defender", "one response per attack")
    f = state.fighters[i]
    assert attack.value is not None
    ok = defend_eligibility(attack.value, attack.was_holder, f.remaining)
    if not ok.allowed or ok.die is None:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "defender", "no initiative dice left")
    if (
        protecting is not None
        and protecting != defender
        and ok.slowness
        and not options(profile).slow_defence_of_others
    ):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "protecting", "slow defence of others")
    new = f.model_copy(
        update={"remaining": f.remaining[1:], "aside": (*f.aside, ok.die), "acted": True}
    )
    step = Step(actor=defender, kind=StepKind.DEFEND, value=ok.die, responds_to=attack_at)
    slowness = (
        Difficulty(kind=DifficultyKind.SLOWNESS, magnitude=ok.slowness) if ok.slowness else None
    )
    defence = Defence(defender=defender, die=ok.die, slowness=ok.slowness, difficulty=slowness)
    return _replace(state, i, new, step, rng), defence


def holders(state: Round) -> list[str]:
    """Who still holds dice and may act at any moment."""
    if not isinstance(state, Round):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected Round")
    return [f.sheet.id for f in state.fighters if f.holding and f.remaining]


def end_round(state: Round, profile: Profile | None = None) -> RoundEnd:
    """Close a round in which nobody is up any more (AMB-D6: unused and held dice are lost).

    S3 «Если никто не совершил ни одного действия за весь раунд, потому что все выжидали, то герои
    оказываются на взводе [−слабость], а персонажи второго плана — на взводе [−3]… в следующем
    раунде все они не могут выжидать». [P] AMB-D10: heroes without weakness and opponents get 3.
    """
    if not isinstance(state, Round):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected Round")
    if state.up is not None:
        raise RulesInputError(ErrorCode.STATE, "state", f"{state.up.actor} is still up")
    if any(f.acted for f in state.fighters):
        return RoundEnd(inactive=False, wounds={}, waiting_forbidden=False)
    opts = options(profile)
    wounds = {}
    for f in state.fighters:
        if f.sheet.hero:
            sev = f.sheet.weakness if f.sheet.weakness is not None else opts.no_weakness_penalty
        else:
            sev = opts.inactivity_wound_supporting
        wounds[f.sheet.id] = Difficulty(kind=DifficultyKind.ON_EDGE, magnitude=sev)
    return RoundEnd(inactive=True, wounds=wounds, waiting_forbidden=True)


def next_round(
    state: Round,
    *,
    faces: Mapping[str, Sequence[int]] | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> tuple[Round, RoundEnd]:
    """End ``state`` and roll the next round: S3 «Следующий раунд начинается с нового определения
    инициативы». The :class:`RoundEnd` carries any inactivity wounds for the bot to record."""
    ended = end_round(state, profile)
    fresh = start_round(
        [f.sheet for f in state.fighters],
        faces=faces,
        rng=rng,
        number=state.number + 1,
        waiting_forbidden=ended.waiting_forbidden,
    )
    return fresh, ended


def join(
    state: Round,
    combatant: Combatant,
    *,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
) -> Round:
    """Someone enters the fight: they roll their Расторопность d6 like everyone did (S3
    «Противники, опасности и союзники точно так же участвуют») and take their place in the
    order by those dice. [P] The texts are silent on joining mid-round; the newcomer's dice are
    simply compared from the next step on, which is how a table would play it."""
    if not isinstance(state, Round):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected Round")
    if not isinstance(combatant, Combatant):
        raise RulesInputError(ErrorCode.TYPE, "combatant", "expected Combatant")
    if any(f.sheet.id == combatant.id for f in state.fighters):
        raise RulesInputError(ErrorCode.STATE, "combatant.id", "already in this round")
    alone = start_round(
        [combatant],
        faces={combatant.id: faces} if faces is not None else None,
        rng=rng,
        number=state.number,
    )
    fighters = (*state.fighters, *alone.fighters)
    return _decide(state.model_copy(update={"fighters": fighters}), rng)


def leave(state: Round, fighter: str, rng: Rng | None = None) -> Round:
    """Someone leaves the fight (fled, fell, the Storyteller removed them); their dice go with
    them and the order is decided again. The round's log keeps their past steps."""
    i = _index(state, fighter)
    fighters = (*state.fighters[:i], *state.fighters[i + 1 :])
    if not fighters:
        raise RulesInputError(ErrorCode.RANGE, "fighters", "nobody would be left")
    return _decide(state.model_copy(update={"fighters": fighters}), rng)


def restart(
    state: Round, *, rng: Rng | None = None, profile: Profile | None = None
) -> tuple[Round, RoundEnd]:
    """«Новый раунд» pressed at any moment: dice nobody spent are lost (AMB-D6), and only a
    round that ran out by itself can be one of inactivity (§D.8) — a round cut short by the
    Storyteller says nothing about whether everyone would have held."""
    if not isinstance(state, Round):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected Round")
    if state.up is not None:
        fresh = start_round([f.sheet for f in state.fighters], rng=rng, number=state.number + 1)
        return fresh, RoundEnd(inactive=False, wounds={}, waiting_forbidden=False)
    return next_round(state, rng=rng, profile=profile)


def initiative_order(
    dice: Mapping[str, Sequence[int]], rng: Rng | None = None
) -> list[tuple[str, int]]:
    """The whole round's order of (participant, die) when nobody holds or defends (§D.7).

    ``rng`` is used only to break full ties (S3 «При полной ничьей бросьте кубик на чёт-нечет»).
    """
    if not isinstance(dice, Mapping):
        raise RulesInputError(ErrorCode.TYPE, "dice", "expected a mapping id -> dice")
    combatants = []
    for pid, faces in dice.items():
        if not isinstance(pid, str):
            raise RulesInputError(ErrorCode.TYPE, "dice", "participant ids are str")
        n = len(check_ints(faces, f"dice[{pid}]"))
        check_int(n, f"dice[{pid}]", 1, ALACRITY_MAX)
        combatants.append(Combatant(id=pid, alacrity=n))
    state = start_round(combatants, faces=dice, rng=rng)
    order = []
    while state.up is not None:
        order.append((state.up.actor, state.up.value))
        state = act(state, state.up.actor, rng)
    return order
