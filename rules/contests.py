"""Rolls against each other and rolls together (docs/rules.md §A.12–§A.15).

Russian vocabulary: «Противопоставленные действия» (S0) = «Противостояние» (S1) =
«Проверки-соревнования» (S4); «Работа в команде» for teamwork. Every function takes resolved
:class:`~rules.d10.D10Result` values, so the same code serves dice from the bot and dice the
players rolled at the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.d10 import D10Result, Outcome
from rules.errors import ErrorCode, RulesInputError, check_bool, check_int
from rules.profiles import Profile, TeamBotch, check_profile

CONTEST_LIMIT = 1000
DUEL_LEAD_TO_WIN = 5


class Side(StrEnum):
    A = "a"
    B = "b"


def _check_roll(roll: object, field: str) -> D10Result:
    if not isinstance(roll, D10Result):
        raise RulesInputError(ErrorCode.TYPE, field, "expected a D10Result")
    return roll


def _leader(a: int, b: int) -> Side | None:
    if a > b:
        return Side.A
    if b > a:
        return Side.B
    return None


@dataclass(frozen=True)
class OpposedResult:
    """``winner`` None is a tie («Ничья», [P]); each side's botch is reported on its own."""

    winner: Side | None
    net: int
    a_outcome: Outcome
    b_outcome: Outcome


def opposed(a: D10Result, b: D10Result) -> OpposedResult:
    """S0 «…ваш персонаж получает только те успехи, которые превышают успехи соперника.»

    S1 says the same: each opposing success «уничтожает» one of yours, like a 1. The sides
    may have rolled against different difficulties; that is already inside their results.
    """
    _check_roll(a, "a")
    _check_roll(b, "b")
    diff = a.successes - b.successes
    return OpposedResult(_leader(diff, 0), abs(diff), a.outcome, b.outcome)


@dataclass(frozen=True)
class TeamResult:
    total: int
    reached: bool
    best_member: int | None  # index of the top contributor, None when nobody scored
    outcomes: tuple[Outcome, ...]


def teamwork(
    results: Sequence[D10Result], profile: Profile, target: int | None = None
) -> TeamResult:
    """Separate rolls whose successes are added (§A.13).

    S0 «…разные персонажи не могут объединять свои Черты…» and «каждый игрок преуспевает, а
    также терпит неудачу или провал отдельно»: a botching member adds nothing, and only with
    ``TeamBotch.RUINS_ALL`` does the botch «разрушить все усилия» (AMB-A11). The member with
    the most successes is the one who «находит» the clue (first of equals). Without a
    ``target`` the team attempts a simple action, which one success completes (S0 «Любое
    действие, которое считается удачно выполненным при одном успехе… называется простым»).
    """
    check_profile(profile)
    if isinstance(results, (str, bytes)) or not isinstance(results, Sequence) or not results:
        raise RulesInputError(ErrorCode.TYPE, "results", "expected a non-empty list of rolls")
    rolls = [_check_roll(r, f"results[{i}]") for i, r in enumerate(results)]
    if target is not None:
        check_int(target, "target", 1, CONTEST_LIMIT)
    outcomes = tuple(r.outcome for r in rolls)
    total = sum(r.successes for r in rolls)
    if profile.team_botch is TeamBotch.RUINS_ALL and Outcome.BOTCH in outcomes:
        total = 0
    best = max(range(len(rolls)), key=lambda i: (rolls[i].successes, -i))
    best_member = best if rolls[best].successes > 0 else None
    reached = total >= target if target is not None else total > 0
    return TeamResult(total, reached, best_member, outcomes)


class ContestKind(StrEnum):
    """S4 «Зависит от типа проверки-соревнования, установленной ГМом» (§A.14)."""

    SINGLE_ROLL = "single_roll"  # «На один бросок»
    RACE_TO_N = "race_to_n"  # «На определённое число успехов: первый набравший их»
    FIXED_ROLLS = "fixed_rolls"  # «В течении определённого числа бросков/ходов»


@dataclass(frozen=True)
class ContestState:
    """A running contest. ``subtract`` says whether the opponent's successes are taken away
    each roll (AMB-A13); the totals are what each side has banked so far."""

    kind: ContestKind
    target: int | None = None
    rolls: int | None = None
    subtract: bool = True
    total_a: int = 0
    total_b: int = 0
    rolls_made: int = 0
    finished: bool = False
    winner: Side | None = None
    net: int = 0


def start_contest(
    kind: ContestKind,
    *,
    target: int | None = None,
    rolls: int | None = None,
    subtract: bool | None = None,
) -> ContestState:
    """A new contest of the kind the Storyteller picked.

    ``RACE_TO_N`` needs ``target`` and by default each side gathers its own successes (S4 is
    silent, AMB-A13); with ``subtract=True`` it is the S0/S1 extended opposed roll.
    ``FIXED_ROLLS`` needs ``rolls`` and an explicit ``subtract`` because S4 names both
    variants («если без отъёма успехов» / «если с отъёмом»).
    """
    if not isinstance(kind, ContestKind):
        raise RulesInputError(ErrorCode.TYPE, "kind", "expected a ContestKind")
    if subtract is not None:
        check_bool(subtract, "subtract")
    if kind is ContestKind.SINGLE_ROLL:
        return ContestState(kind, rolls=1, subtract=True)
    if kind is ContestKind.RACE_TO_N:
        if target is None:
            raise RulesInputError(ErrorCode.RANGE, "target", "a race needs a target")
        check_int(target, "target", 1, CONTEST_LIMIT)
        return ContestState(kind, target=target, subtract=bool(subtract))
    if rolls is None or subtract is None:
        raise RulesInputError(ErrorCode.RANGE, "rolls", "fixed rolls need rolls and subtract")
    check_int(rolls, "rolls", 1, CONTEST_LIMIT)
    return ContestState(kind, rolls=rolls, subtract=subtract)


def start_extended_opposed(target: int) -> ContestState:
    """S0/S1's extended and opposed action: first to ``target`` wins, and only the successes
    above the opponent's that roll count (S1 «Каждый успешный балл, превышающий количество
    таких баллов у оппонента за один ход, прибавляется к сумме успешных баллов.»)."""
    return start_contest(ContestKind.RACE_TO_N, target=target, subtract=True)


def _check_contest(state: object) -> ContestState:
    if not isinstance(state, ContestState) or not isinstance(state.kind, ContestKind):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected a ContestState")
    check_int(state.total_a, "state.total_a", 0)
    check_int(state.total_b, "state.total_b", 0)
    check_int(state.rolls_made, "state.rolls_made", 0)
    if state.finished:
        raise RulesInputError(ErrorCode.STATE, "state.finished", "the contest is over")
    if state.kind is ContestKind.RACE_TO_N:
        check_int(state.target, "state.target", 1, CONTEST_LIMIT)
    else:
        check_int(state.rolls, "state.rolls", 1, CONTEST_LIMIT)
    return state


def contest_step(state: ContestState, a: D10Result, b: D10Result) -> ContestState:
    """One roll by each side.

    A single roll is :func:`opposed` (S4 «успехи проигравшего будут вычтены из суммы успехов
    победителя»). In the running kinds a botch wipes the botcher's bank, as an extended
    action's botch does (S1 «…набранные ранее успешные баллы пропадают»; [P] AMB-A10). If both
    sides reach the target on the same roll, the higher total wins; equal totals roll again.
    """
    _check_contest(state)
    _check_roll(a, "a")
    _check_roll(b, "b")
    n = state.rolls_made + 1
    if state.kind is ContestKind.SINGLE_ROLL:
        result = opposed(a, b)
        return replace(state, rolls_made=n, finished=True, winner=result.winner, net=result.net)

    total_a, total_b = state.total_a, state.total_b
    if state.subtract:
        diff = a.successes - b.successes
        total_a += max(0, diff)
        total_b += max(0, -diff)
    else:
        total_a += a.successes
        total_b += b.successes
    if a.outcome is Outcome.BOTCH:
        total_a = 0
    if b.outcome is Outcome.BOTCH:
        total_b = 0
    nxt = replace(state, total_a=total_a, total_b=total_b, rolls_made=n)

    if state.kind is ContestKind.RACE_TO_N:
        target = check_int(state.target, "state.target", 1)
        if max(total_a, total_b) >= target:
            winner = _leader(total_a, total_b)
            if winner is not None:
                net = abs(total_a - total_b)
                return replace(nxt, finished=True, winner=winner, net=net)
        return nxt
    if n >= check_int(state.rolls, "state.rolls", 1):
        winner = _leader(total_a, total_b)
        return replace(nxt, finished=True, winner=winner, net=abs(total_a - total_b))
    return nxt


@dataclass(frozen=True)
class DuelTraits:
    """What a drinker's opponent rolls against (S1 «Кто больше выпьет»)."""

    manipulation: int
    stamina: int
    willpower: int


def drinking_duel_difficulty(roll_no: int, opponent: DuelTraits) -> int:
    """S1: roll 1 at the opponent's Манипулирование + 3, rolls 2 and 3 at their
    Выносливость + 3, every later roll at their Сила воли; clamped to 2–10 [P]."""
    check_int(roll_no, "roll_no", 1, CONTEST_LIMIT)
    if not isinstance(opponent, DuelTraits):
        raise RulesInputError(ErrorCode.TYPE, "opponent", "expected DuelTraits")
    check_int(opponent.manipulation, "opponent.manipulation", 0, 10)
    check_int(opponent.stamina, "opponent.stamina", 0, 10)
    check_int(opponent.willpower, "opponent.willpower", 0, 10)
    if roll_no == 1:
        raw = opponent.manipulation + 3
    elif roll_no <= 3:
        raw = opponent.stamina + 3
    else:
        raw = opponent.willpower
    return min(10, max(2, raw))


@dataclass(frozen=True)
class DuelState:
    """Each drinker's banked successes; the lead is their difference."""

    total_a: int = 0
    total_b: int = 0
    rolls_made: int = 0
    winner: Side | None = None

    @property
    def lead(self) -> int:
        return abs(self.total_a - self.total_b)


def drinking_duel_step(state: DuelState, a: D10Result, b: D10Result) -> DuelState:
    """One round of Stamina rolls (§A.15).

    S1 «Чтобы победить, вам надо набрать на пять баллов больше, чем вашему сопернику.» Each
    side banks its own successes and wins when it is five ahead; S1 «В случае провала все
    набранные вами успешные баллы пропадают» wipes only the botcher's bank.
    """
    if not isinstance(state, DuelState):
        raise RulesInputError(ErrorCode.TYPE, "state", "expected a DuelState")
    check_int(state.total_a, "state.total_a", 0)
    check_int(state.total_b, "state.total_b", 0)
    check_int(state.rolls_made, "state.rolls_made", 0)
    if state.winner is not None:
        raise RulesInputError(ErrorCode.STATE, "state.winner", "the duel is over")
    _check_roll(a, "a")
    _check_roll(b, "b")
    total_a = 0 if a.outcome is Outcome.BOTCH else state.total_a + a.successes
    total_b = 0 if b.outcome is Outcome.BOTCH else state.total_b + b.successes
    winner = None
    if abs(total_a - total_b) >= DUEL_LEAD_TO_WIN:
        winner = _leader(total_a, total_b)
    return DuelState(total_a, total_b, state.rolls_made + 1, winner)
