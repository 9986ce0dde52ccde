"""The d6 roll: measures of success, gain, fiasco, special effort and contests
(docs/rules.md §D.3–§D.5; S2 «Выигрыш», «Фиаско», «Особое усилие», «Состязания»).

S2 «Каждая пятёрка и шестёрка, выпавшая на костях, означает одну меру успеха.» No success
count, no botch table: a roll is measured, and only zero measures is a fiasco. Armour rolls
(§D.10) use the same dice but S3 says «на неё не влияют ни особое усилие, ни фиаско», so a
result remembers whether it was armour.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum

from rules.d6.chance import MAGNITUDE_MAX, Difficulty, DifficultyKind, _Frozen, options, wound
from rules.dice import Rng, roll_faces
from rules.errors import ErrorCode, RulesInputError, check_bool, check_int, check_ints, parse_enum
from rules.profiles import Profile

CHANCE_MAX = 100
MEASURE_FACE = 5  # S2: fives and sixes are measures


class D6Outcome(StrEnum):
    SUCCESS = "success"  # at least the required measures
    SHORTFALL = "shortfall"  # [P] AMB-D3: some measures, fewer than required, no fiasco
    FIASCO = "fiasco"  # фиаско: S2 «Если ты не получил ни одной меры успеха, это фиаско.»
    AUTO_SUCCESS = "auto_success"  # no roll needed (S2 «бросать кубики не нужно»)
    NO_MEASURES = "no_measures"  # an armour roll with no measures: not a fiasco (§D.10)


class EffortFuel(StrEnum):
    """The price of a special effort (S2): «телесная рана тяжестью 1 или душевная рана тяжестью 3»,
    or memories («воспоминаниям … не получаешь рану»)."""

    PHYSICAL = "physical"
    MENTAL = "mental"
    MEMORY = "memory"


class D6Result(_Frozen):
    """One roll. ``gain`` (выигрыш) equals ``measures`` when unopposed (S2 «Сумма мер успеха …
    является выигрышем, если ему никто не противостоит»); ``None`` for an automatic success."""

    faces: tuple[int, ...]
    measures: int
    required: int
    gain: int | None
    outcome: D6Outcome
    armour: bool = False
    special_effort: bool = False
    rerolled: tuple[int, ...] = ()  # indices rerolled by the special effort


def count_measures(faces: Sequence[int]) -> int:
    """Measures of success among ``faces`` (each 1..6)."""
    return sum(1 for f in check_ints(faces, "faces", 1, 6) if f >= MEASURE_FACE)


def _outcome(measures: int, required: int, armour: bool, profile: Profile | None) -> D6Outcome:
    if measures == 0:
        return D6Outcome.NO_MEASURES if armour else D6Outcome.FIASCO
    if measures >= required:
        return D6Outcome.SUCCESS
    return D6Outcome.FIASCO if options(profile).shortfall_is_fiasco else D6Outcome.SHORTFALL


def _faces(
    count: int, faces: Sequence[int] | None, rng: Rng | None, field: str = "faces"
) -> tuple[int, ...]:
    """Faces as given (physical dice, tests) or rolled; given faces win over ``rng`` (§0.2)."""
    if faces is None:
        return tuple(roll_faces(count, 6, rng))
    if isinstance(faces, (str, bytes)) or not isinstance(faces, Sequence):
        raise RulesInputError(ErrorCode.TYPE, field, "expected a sequence of int")
    if len(faces) != count:
        raise RulesInputError(ErrorCode.FACES_LEN, field, f"{len(faces)} faces for {count} dice")
    for i, f in enumerate(faces):
        check_int(f, f"{field}[{i}]")
        if not 1 <= f <= 6:
            raise RulesInputError(ErrorCode.FACE_VALUE, f"{field}[{i}]", f"{f} is not a d6 face")
    return tuple(faces)


def roll(
    chance: int,
    *,
    required: int = 1,
    faces: Sequence[int] | None = None,
    rng: Rng | None = None,
    armour: bool = False,
    profile: Profile | None = None,
) -> D6Result:
    """Roll ``chance`` dice (§D.3). S2: «Для преодоления препятствия обычно достаточно 1 меры
    успеха, если сценарист не говорит обратного» — hence ``required`` defaults to 1.

    ``armour`` marks a passive armour roll (§D.10): no fiasco, no special effort, no die spent.
    """
    check_int(chance, "chance", 1, CHANCE_MAX)
    check_int(required, "required", 1, CHANCE_MAX)
    check_bool(armour, "armour")
    got = _faces(chance, faces, rng)
    m = count_measures(got)
    return D6Result(
        faces=got,
        measures=m,
        required=required,
        gain=m,
        outcome=_outcome(m, required, armour, profile),
        armour=armour,
    )


def auto_success() -> D6Result:
    """No roll: S2 «Если у тебя есть подходящие силы и тебе никто не мешает либо ситуация не
    предполагает негативных последствий, то бросать кубики не нужно». The gain is undefined
    (AMB-D2); :func:`gain_value` turns it into the profile's number where one is needed."""
    return D6Result(faces=(), measures=0, required=1, gain=None, outcome=D6Outcome.AUTO_SUCCESS)


def gain_value(result: D6Result, profile: Profile | None = None) -> int:
    """The gain as a number: an automatic success counts as ``auto_success_gain`` (AMB-D2)."""
    if not isinstance(result, D6Result):
        raise RulesInputError(ErrorCode.TYPE, "result", "expected D6Result")
    if result.gain is None:
        return options(profile).auto_success_gain
    return result.gain


class Effort(_Frozen):
    """A special effort's outcome: the new roll and the wound it costs.

    The wound is felt only after the action (S2 «Раны начинают чувствоваться после совершения
    действия»), so the bot applies it once this action is resolved, not to this roll's chance.
    ``noop`` is AMB-D14: nothing to reroll, yet the price is paid.
    """

    result: D6Result
    wound: Difficulty | None
    noop: bool


_PRICE = {
    EffortFuel.PHYSICAL: (DifficultyKind.PHYSICAL_WOUND, 1),
    EffortFuel.MENTAL: (DifficultyKind.MENTAL_WOUND, 3),
}


def special_effort(
    previous: D6Result,
    fuel: EffortFuel,
    *,
    used_this_action: bool = False,
    new_faces: Sequence[int] | None = None,
    rng: Rng | None = None,
    profile: Profile | None = None,
) -> Effort:
    """Особое усилие (§D.4): reroll every die that did not show 5 or 6, once per action.

    S2 «право перебросить все кубики, на которых не выпали результаты 5 и 6» — all of them, not
    a chosen few; rerolling only non-measures can never lose a measure, so this is also the best
    policy. S2 «Совершая действие, ты можешь приложить особое усилие лишь один раз» →
    ``E_SPECIAL_EFFORT_USED``; S3 armour «на неё не влияют ни особое усилие» → ``E_NOT_ALLOWED``.
    ``new_faces`` are the rerolled dice in order, one per die showing 1–4.
    """
    if not isinstance(previous, D6Result):
        raise RulesInputError(ErrorCode.TYPE, "previous", "expected D6Result")
    fuel = parse_enum(EffortFuel, fuel, "fuel")
    check_bool(used_this_action, "used_this_action")
    if used_this_action or previous.special_effort:
        raise RulesInputError(ErrorCode.SPECIAL_EFFORT_USED, "special_effort", "once per action")
    if previous.armour:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "special_effort", "armour roll")
    if previous.outcome is D6Outcome.AUTO_SUCCESS:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "special_effort", "nothing was rolled")
    idx = tuple(i for i, f in enumerate(previous.faces) if f < MEASURE_FACE)
    if not idx and not options(profile).special_effort_noop_allowed:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "special_effort", "no die to reroll")
    fresh = _faces(len(idx), new_faces, rng, "new_faces")
    faces = list(previous.faces)
    for i, f in zip(idx, fresh, strict=True):
        faces[i] = f
    m = count_measures(faces)
    price = _PRICE.get(fuel)
    result = previous.model_copy(
        update={
            "faces": tuple(faces),
            "measures": m,
            "gain": m,
            "outcome": _outcome(m, previous.required, False, profile),
            "special_effort": True,
            "rerolled": idx,
        }
    )
    return Effort(
        result=result,
        wound=wound(*price) if price is not None else None,
        noop=not idx,
    )


def fiasco_penalty(weakness: int | None, profile: Profile | None = None) -> int:
    """How hard a fiasco bites when the scenarist has no better idea (§D.3, §D.6).

    S2 «Слабость — это мера неудачи, а фиаско — это и есть неудача»: a wound, a loss of an
    item's quality or of a project's readiness equal to the weakness, or 3 without one (S2 «или
    −3, если у персонажей нет слабостей»).
    """
    if weakness is None:
        return options(profile).no_weakness_penalty
    return check_int(weakness, "weakness", 1, 5)


class ContestResult(_Frozen):
    """A contest (состязание, §D.5). ``winner`` is ``None`` on a tie («ничья»).

    ``fiasco`` lists every side with zero measures: S2 «если один из участников состязания
    терпит фиаско, это ещё не значит, что второй гарантированно побеждает».
    """

    winner: str | None
    gain: int
    tie: bool
    tied: tuple[str, ...]
    fiasco: tuple[str, ...]


def contest(measures: Mapping[str, int], profile: Profile | None = None) -> ContestResult:
    """Decide a contest from each side's measures (§D.5, AMB-D12).

    All actions are simultaneous; S2 «Когда случается состязание, выигрышем называется разница
    между количеством мер успеха победителя и побеждённого» and «Если соперники получают
    одинаковые результаты, то случается ничья». With more than two sides (S2 «нередко участвует
    более двух сторон») the unique top wins by top − second; a shared top is a tie among them.
    """
    if not isinstance(measures, Mapping):
        raise RulesInputError(ErrorCode.TYPE, "measures", "expected a mapping side -> measures")
    if len(measures) < 2:
        raise RulesInputError(ErrorCode.RANGE, "measures", "a contest needs two sides")
    if len(measures) > 2 and not options(profile).multi_side_contests:
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "measures", "only two sides")
    for side, m in measures.items():
        if not isinstance(side, str):
            raise RulesInputError(ErrorCode.TYPE, "measures", "side ids are str")
        check_int(m, f"measures[{side}]", 0, CHANCE_MAX * 100)
    ranked = sorted(measures.values(), reverse=True)
    top, second = ranked[0], ranked[1]
    tied = tuple(s for s, m in measures.items() if m == top)
    fiasco = tuple(s for s, m in measures.items() if m == 0)
    if len(tied) > 1:
        return ContestResult(winner=None, gain=0, tie=True, tied=tied, fiasco=fiasco)
    return ContestResult(winner=tied[0], gain=top - second, tie=False, tied=(), fiasco=fiasco)


def challenge_contest(
    rolls: Mapping[str, Sequence[int]], actions: int, profile: Profile | None = None
) -> ContestResult:
    """A contest run as a challenge (S2 «у состязающихся сторон есть определённое количество
    действий, и победит тот, кто в итоге наберёт больше мер успеха»); [P] equal totals tie.

    ``rolls`` holds each side's measures per action; no side may exceed ``actions``.
    """
    check_int(actions, "actions", 1, MAGNITUDE_MAX)
    if not isinstance(rolls, Mapping):
        raise RulesInputError(ErrorCode.TYPE, "rolls", "expected a mapping side -> measures")
    totals: dict[str, int] = {}
    for side, per_action in rolls.items():
        ms = check_ints(per_action, f"rolls[{side}]", 0, CHANCE_MAX)
        if len(ms) > actions:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, f"rolls[{side}]", "too many actions")
        totals[side] = sum(ms)
    return contest(totals, profile)
