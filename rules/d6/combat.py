"""Attack, defence, armour, spending the gain and tricks of the d6 system: docs/rules.md §D.9–§D.12
(S3 «Атака и защита», «Броня», «Успешные атаки», «Манёвры», «Разнообразные уловки»).

Everything here works on measures already rolled (see :mod:`rules.d6.roll`) and on initiative
already spent (see :mod:`rules.d6.initiative`): an attack's gain is its measures minus what the
defences and then the armour take away, and the gain is then spent on wounds, broken items,
difficulties or advantages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from rules.d6.chance import (
    MAGNITUDE_MAX,
    Advantage,
    AdvantageUse,
    Difficulty,
    DifficultyKind,
    _Frozen,
    options,
    wound,
)
from rules.d6.projects import Project, new_project
from rules.errors import ErrorCode, RulesInputError, check_bool, check_int, parse_enum
from rules.profiles import Profile


class AttackResult(_Frozen):
    """The resolved attack.

    ``fiasco`` is the attacker's own zero measures only: S3 «Если из-за защиты или брони жертвы
    выигрыш атакующего упал до нуля или ниже, нападающий не терпит фиаско, но и ран не наносит».
    ``defender_advantages`` are the one-shot advantages of defenders who out-rolled the attack.
    ``defender_fiascoes`` are the defenders who scored nothing: a defence is an action, and S2
    «Если ты не получил ни одной меры успеха, это фиаско» spares only the armour (S3 «не может
    быть фиаско» is said of the armour alone).
    """

    measures: int
    gain: int
    hit: bool
    fiasco: bool
    absorbed_by_defence: int
    absorbed_by_armour: int
    defender_advantages: dict[str, Advantage]
    defender_fiascoes: tuple[str, ...] = ()


def resolve_attack(
    attack_measures: int,
    defences: Mapping[str, int] | None = None,
    armour_measures: int | None = None,
    attacker: str | None = None,
) -> AttackResult:
    """Take defences, then armour, off an attack's measures (§D.9–§D.10).

    ``defences`` maps each responding character to their measures; a mapping holds one response
    per character (AMB-D7). Several defenders subtract one after another (AMB-D9). A defender who
    beats what is left of the attack gets S3's «одноразовое преимущество в размере выигрыша, если
    следующим действием или атакует нападавшего, или предпримет против него манёвр».

    Armour is counted after a defence that did not bear fruit, or instead of one: S3 «Броню нельзя
    использовать во время действия защиты. Она учитывается после этого действия, если оно не
    принесло желаемых плодов, или вместо него». ``None`` means no armour.
    """
    m = check_int(attack_measures, "attack_measures", 0, MAGNITUDE_MAX)
    if attacker is not None and not isinstance(attacker, str):
        raise RulesInputError(ErrorCode.TYPE, "attacker", "expected an id")
    given = defences if defences is not None else {}
    if not isinstance(given, Mapping):
        raise RulesInputError(ErrorCode.TYPE, "defences", "expected a mapping defender -> measures")
    residual = m
    advantages: dict[str, Advantage] = {}
    fiascoes: list[str] = []
    for who, md in given.items():
        if not isinstance(who, str) or who == attacker:
            raise RulesInputError(ErrorCode.STATE, "defences", f"bad defender {who!r}")
        check_int(md, f"defences[{who}]", 0, MAGNITUDE_MAX)
        if md == 0:
            fiascoes.append(who)
        if md > residual:
            advantages[who] = Advantage(
                magnitude=md - residual,
                use=AdvantageUse.NEXT_ACTION_VS_FOE,
                one_shot=True,
                against=attacker,
            )
        residual = max(0, residual - md)
    after_defence = residual
    if armour_measures is not None:
        check_int(armour_measures, "armour_measures", 0, MAGNITUDE_MAX)
        residual = max(0, residual - armour_measures)
    return AttackResult(
        measures=m,
        gain=residual,
        hit=residual > 0,
        fiasco=m == 0,
        absorbed_by_defence=m - after_defence,
        absorbed_by_armour=after_defence - residual,
        defender_advantages=advantages,
        defender_fiascoes=tuple(fiascoes),
    )


def durability_loss(measures: int, threshold: int) -> int:
    """«Ломать и крушить!» (§D.11): S3 «снижаешь прочность предмета на 1 за каждую меру успеха
    сверх порога его прочности»."""
    check_int(measures, "measures", 0, MAGNITUDE_MAX)
    check_int(threshold, "threshold", 0, MAGNITUDE_MAX)
    return max(0, measures - threshold)


class GainUse(StrEnum):
    """Where a share of the gain goes (§D.11)."""

    PHYSICAL_WOUND = "physical_wound"  # «Всё в раны!»
    MENTAL_WOUND = "mental_wound"
    ITEM = "item"  # «Ломать и крушить!»
    DIFFICULTY = "difficulty"  # «Хитрая уловка!»: a difficulty for a foe
    ADVANTAGE = "advantage"  # «Хитрая уловка!»: an advantage for oneself or an ally


class Manoeuvre(StrEnum):
    """The manoeuvre declared before the roll: S3 «нужно выбрать что-то одно — трудность или
    преимущество … и принять это решение нужно до броска костей»."""

    DIFFICULTY = "difficulty"
    ADVANTAGE = "advantage"


class GainShare(_Frozen):
    """One share of the gain: ``amount`` measures to ``target`` as ``use``.

    ``threshold`` is the item's durability threshold for ``ITEM`` shares.
    """

    target: str
    use: GainUse
    amount: int
    threshold: int = 0


class Effect(_Frozen):
    """What a share does: a wound or difficulty (``difficulty``), an advantage, or a durability
    loss on an item."""

    target: str
    difficulty: Difficulty | None = None
    advantage: Advantage | None = None
    durability_loss: int = 0


_WOUND_OF = {
    GainUse.PHYSICAL_WOUND: DifficultyKind.PHYSICAL_WOUND,
    GainUse.MENTAL_WOUND: DifficultyKind.MENTAL_WOUND,
}


def spend_gain(
    gain: int, shares: Sequence[GainShare], declared: Manoeuvre | None = None
) -> tuple[Effect, ...]:
    """Spend an attack's gain (§D.11), split «после броска костей» among foes and kinds.

    The shares must add up to the gain. Manoeuvre shares need the manoeuvre declared before the
    roll (S3 «Если ты собираешься предпринять манёвр, о нём надо заявить заранее») and must all
    be of the declared kind; mixing them with wounds is «Уловка с подвохом!».
    """
    g = check_int(gain, "gain", 0, MAGNITUDE_MAX)
    if declared is not None and not isinstance(declared, Manoeuvre):
        raise RulesInputError(ErrorCode.TYPE, "declared", "expected Manoeuvre")
    if isinstance(shares, (str, bytes)) or not isinstance(shares, Sequence):
        raise RulesInputError(ErrorCode.TYPE, "shares", "expected a sequence of GainShare")
    total = 0
    effects = []
    for i, s in enumerate(shares):
        if not isinstance(s, GainShare):
            raise RulesInputError(ErrorCode.TYPE, f"shares[{i}]", "expected GainShare")
        amount = check_int(s.amount, f"shares[{i}].amount", 1, MAGNITUDE_MAX)
        total += amount
        if s.use in (GainUse.DIFFICULTY, GainUse.ADVANTAGE):
            if declared is None or declared.value != s.use.value:
                raise RulesInputError(ErrorCode.NOT_ALLOWED, f"shares[{i}].use", "not declared")
            if s.use is GainUse.DIFFICULTY:
                effects.append(Effect(target=s.target, difficulty=Difficulty(magnitude=amount)))
            else:
                effects.append(Effect(target=s.target, advantage=Advantage(magnitude=amount)))
        elif s.use is GainUse.ITEM:
            loss = durability_loss(amount, check_int(s.threshold, f"shares[{i}].threshold", 0))
            effects.append(Effect(target=s.target, durability_loss=loss))
        else:
            effects.append(Effect(target=s.target, difficulty=wound(_WOUND_OF[s.use], amount)))
    if total != g:
        raise RulesInputError(ErrorCode.RANGE, "shares", f"{total} shared out of gain {g}")
    return tuple(effects)


class Aim(_Frozen):
    """Прицеливание: what is left of the target's difficulty and the advantage gained."""

    difficulty_left: int
    advantage: Advantage | None


def aim(target_difficulty: int, measures: int) -> Aim:
    """Aiming (§D.12): measures first cancel the target's difficulty; S3 «Если герой получает
    больше мер успеха, чем отнимает трудность, то разница становится его преимуществом на
    следующий ход». After the attack one must aim again."""
    d = check_int(target_difficulty, "target_difficulty", 0, MAGNITUDE_MAX)
    m = check_int(measures, "measures", 0, MAGNITUDE_MAX)
    extra = m - d
    adv = (
        Advantage(magnitude=extra, use=AdvantageUse.NEXT_TURN, one_shot=True) if extra > 0 else None
    )
    return Aim(difficulty_left=max(0, d - m), advantage=adv)


def shove(gain: int, knock_down: bool = True) -> tuple[Difficulty | None, Difficulty | None]:
    """Толчок (§D.12): S3 «первая мера успеха принесёт его противнику трудность −1, связанную с
    тем, что его опрокинули на землю, остальные — ушибы» — (knocked-down difficulty, bruise
    wound). The attacker «может решить»: with ``knock_down`` False all of it is bruises."""
    g = check_int(gain, "gain", 0, MAGNITUDE_MAX)
    check_bool(knock_down, "knock_down")
    if g == 0:
        return None, None
    down = Difficulty(kind=DifficultyKind.KNOCKED_DOWN, magnitude=1) if knock_down else None
    bruises = g - 1 if knock_down else g
    hurt = wound(DifficultyKind.PHYSICAL_WOUND, bruises) if bruises else None
    return down, hurt


def grapple(gain: int, hold_magnitude: int) -> tuple[Difficulty | None, Difficulty | None]:
    """Захват (§D.12): S3 «распределить свой выигрыш между трудностью, связанной с ограничением
    движений противника, и подходящими ранами». Releasing removes the difficulty, not the wounds.
    """
    g = check_int(gain, "gain", 0, MAGNITUDE_MAX)
    h = check_int(hold_magnitude, "hold_magnitude", 0, g)
    restrained = Difficulty(kind=DifficultyKind.RESTRAINED, magnitude=h) if h else None
    hurt = wound(DifficultyKind.PHYSICAL_WOUND, g - h) if g - h else None
    return restrained, hurt


def poison_wound(
    result: AttackResult, hit_body: bool, profile: Profile | None = None
) -> Difficulty | None:
    """Отравление (§D.12): the poison works only if the body is hit, S3 «Если стрела застрянет в
    доспехе, яд не проникнет в тело». A needle's wound: S3 «Тяжесть раны равна количеству мер
    успеха у нападающего» — [P] AMB-D11 the final gain; the profile may choose raw measures.
    ``None`` means no poison (and the bot applies no poison effect)."""
    if not isinstance(result, AttackResult):
        raise RulesInputError(ErrorCode.TYPE, "result", "expected AttackResult")
    check_bool(hit_body, "hit_body")
    if not hit_body or not result.hit:
        return None
    sev = result.gain if options(profile).poison_uses_final_gain else result.measures
    return wound(DifficultyKind.PHYSICAL_WOUND, sev)


def took_item(gain: int) -> bool:
    """Отнять предмет (§D.12): S3 «Достаточно выигрыша в 1 меру успеха». If the holder defends it
    is a contest (:func:`rules.d6.roll.contest`), slowed as any defence."""
    return check_int(gain, "gain", 0, MAGNITUDE_MAX) >= 1


def escape(measures: int) -> tuple[Difficulty | None, Project | None]:
    """Побег (§D.12): S3 «все твои меры успеха станут трудностью для тех, кто попытается тебя
    атаковать»; pursuers shake it off as «замысел соответствующего размаха»."""
    m = check_int(measures, "measures", 0, MAGNITUDE_MAX)
    if m == 0:
        return None, None
    return Difficulty(kind=DifficultyKind.PURSUIT, magnitude=m), new_project(m)


def charge(gain: int) -> Advantage | None:
    """Атака с разгона (§D.12): an advantage only for a next action that is an attack."""
    g = check_int(gain, "gain", 0, MAGNITUDE_MAX)
    return Advantage(magnitude=g, use=AdvantageUse.NEXT_ATTACK, one_shot=True) if g else None


def full_defence(gain: int) -> Advantage | None:
    """Глухая оборона (§D.12): an advantage only for a next action that is a defence."""
    g = check_int(gain, "gain", 0, MAGNITUDE_MAX)
    return Advantage(magnitude=g, use=AdvantageUse.NEXT_DEFENCE, one_shot=True) if g else None


def vantage_point(magnitude: int = 1) -> Advantage:
    """Прочие действия (§D.12): S3 «хороший обзор +1», held while one stays in the place. No roll
    is needed if nobody interferes, but an initiative die is still set aside."""
    return Advantage(
        magnitude=check_int(magnitude, "magnitude", 1, MAGNITUDE_MAX), use=AdvantageUse.POSITION
    )


# --- Declared tricks that wait for a later roll (§D.12) ------------------------------------


class Trick(StrEnum):
    """A trick of §D.12 that is an action of its own whose measures change a later roll, not a
    use of a hit's gain: S3 «Атака с разгона», «Глухая оборона», «Прицеливание», «Побег»."""

    CHARGE = "charge"
    FULL_DEFENCE = "full_defence"
    AIM = "aim"
    ESCAPE = "escape"


class ActionKind(StrEnum):
    """What a character's rolled action is, for the tricks waiting on it. An armour roll is no
    action (S3 «срабатывает, не требуя действия») and is never one of these."""

    ATTACK = "attack"
    DEFENCE = "defence"
    OTHER = "other"  # any other rolled action
    TRICK = "trick"  # declaring one of the :class:`Trick` actions


class Edge(_Frozen):
    """A declared trick waiting on the character: ``advantage`` for the roll it helps and
    ``difficulty`` — for an aim, what is left of the target's difficulty on that roll; for an
    escape, the difficulty of everyone attacking the escapee."""

    trick: Trick
    advantage: int = 0
    difficulty: int = 0


def declare(trick: Trick, measures: int, target_difficulty: int = 0) -> Edge | None:
    """What a trick's roll leaves waiting (§D.12); ``None`` when it leaves nothing.

    * Атака с разгона: S3 «он вправе получить преимущество для следующего действия, если этим
      действием будет атаковать противника» — the run-up's gain (:func:`charge`).
    * Глухая оборона: S3 «Он может использовать полученное преимущество для следующего действия,
      если это будет защита» (:func:`full_defence`).
    * Прицеливание: the measures cancel the target's difficulty first, the rest is an advantage
      (:func:`aim`); what is left of the difficulty goes with the aim to the attack.
    * Побег: S3 «все твои меры успеха станут трудностью для тех, кто попытается тебя атаковать»
      (:func:`escape`).
    """
    trick = parse_enum(Trick, trick, "trick")
    m = check_int(measures, "measures", 0, MAGNITUDE_MAX)
    d = check_int(target_difficulty, "target_difficulty", 0, MAGNITUDE_MAX)
    if d and trick is not Trick.AIM:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "target_difficulty", "only an aim has one")
    if trick is Trick.CHARGE or trick is Trick.FULL_DEFENCE:
        advantage = charge(m) if trick is Trick.CHARGE else full_defence(m)
        return Edge(trick=trick, advantage=advantage.magnitude) if advantage else None
    if trick is Trick.AIM:
        aimed = aim(d, m)
        extra = aimed.advantage.magnitude if aimed.advantage is not None else 0
        if not extra and not aimed.difficulty_left:
            return None
        return Edge(trick=trick, advantage=extra, difficulty=aimed.difficulty_left)
    pursuit_difficulty, _project = escape(m)
    if pursuit_difficulty is None:
        return None
    return Edge(trick=trick, difficulty=pursuit_difficulty.magnitude)


# Which of one's own rolls a waiting trick helps: a charge only an attack, full defence only a
# defence, an aim the next turn's roll — an attack or another action, not a parry.
_HELPS: dict[Trick, frozenset[ActionKind]] = {
    Trick.CHARGE: frozenset({ActionKind.ATTACK}),
    Trick.FULL_DEFENCE: frozenset({ActionKind.DEFENCE}),
    Trick.AIM: frozenset({ActionKind.ATTACK, ActionKind.OTHER}),
    Trick.ESCAPE: frozenset(),
}


def check_edges(edges: Sequence[Edge], field: str = "edges") -> tuple[Edge, ...]:
    if isinstance(edges, (str, bytes)) or not isinstance(edges, Sequence):
        raise RulesInputError(ErrorCode.TYPE, field, "expected a sequence of Edge")
    seen: set[Trick] = set()
    for i, e in enumerate(edges):
        if not isinstance(e, Edge):
            raise RulesInputError(ErrorCode.TYPE, f"{field}[{i}]", "expected Edge")
        check_int(e.advantage, f"{field}[{i}].advantage", 0, MAGNITUDE_MAX)
        check_int(e.difficulty, f"{field}[{i}].difficulty", 0, MAGNITUDE_MAX)
        if e.trick in seen:
            raise RulesInputError(ErrorCode.STATE, f"{field}[{i}]", "one of each trick")
        seen.add(e.trick)
    return tuple(edges)


def edge_modifier(edges: Sequence[Edge], action: ActionKind) -> tuple[int, tuple[Edge, ...]]:
    """What the waiting tricks add to one's own roll of ``action`` (advantages less what an
    aim left of the target's difficulty), and which of them do. A trick's own roll takes none:
    a new run-up or aim starts from scratch."""
    found = check_edges(edges)
    action = parse_enum(ActionKind, action, "action")
    helping = tuple(e for e in found if action in _HELPS[e.trick])
    return sum(e.advantage - e.difficulty for e in helping), helping


def after_action(
    edges: Sequence[Edge], action: ActionKind, declared: Edge | None = None
) -> tuple[Edge, ...]:
    """The tricks still waiting once the character took a rolled action.

    Whatever helped is spent (S3 on aiming: «после атаки персонажу вновь придётся
    прицелиться»), and whatever did not is lost (S3: «если он сам решит предпринять какое-то
    другое действие, то преимущество потеряется»; «Если персонаж предпринимает другое действие,
    то преимущество от глухой обороны теряется»). An escape lasts through the escapee's
    defences and ends with any other action of theirs; a new trick replaces the old ones.
    """
    found = check_edges(edges)
    action = parse_enum(ActionKind, action, "action")
    if declared is not None and (not isinstance(declared, Edge) or action is not ActionKind.TRICK):
        raise RulesInputError(ErrorCode.STATE, "declared", "only a trick's roll declares one")
    kept = tuple(e for e in found if action is ActionKind.DEFENCE and e.trick is Trick.ESCAPE)
    return (*kept, declared) if declared is not None else kept


def pursuit(edges: Sequence[Edge]) -> int:
    """The difficulty an attacker of this character has from their escape (§D.12 Побег)."""
    return sum(e.difficulty for e in check_edges(edges) if e.trick is Trick.ESCAPE)
