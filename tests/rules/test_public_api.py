"""Every public function of rules/ lets only RulesInputError escape (docs/rules.md §0.2).

«Invalid input (a face of 11, difficulty 1, a negative pool, a bool where an int is
expected) raises one documented exception type whose code says what is wrong.» The bot maps
``RulesInputError.code`` to one sentence; a TypeError, KeyError or pydantic ValidationError
escaping from the rules would reach the player as a crash instead.

The test introspects each module, reads every public function's type hints, and calls it with
a mix of plausible values (so the call gets past the first check) and junk (bools, floats,
None, strings, huge and negative ints, empty and junk-filled containers).
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import inspect
import pkgutil
import random
import signal
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import d10, magick, profiles
from rules.errors import ErrorCode, RulesInputError


def _rules_modules() -> tuple[str, ...]:
    """Every module of the package, sub-packages included (a new module is fuzzed at once)."""
    import rules

    found = [info.name for info in pkgutil.walk_packages(rules.__path__, "rules.")]
    return tuple(sorted(name for name in found if not name.endswith("__main__")))


MODULES = _rules_modules()

# check_* helpers are the validators themselves; their contract is the same and they are fuzzed
# too. Nothing is skipped.


class _Opaque:
    """An object of no type any rule expects."""


JUNK: tuple[Any, ...] = (
    True,
    False,
    1.5,
    6.0,
    float("nan"),
    None,
    "",
    "x",
    "6",
    " MAGE ",
    b"6",
    10**30,
    -(10**30),
    -1,
    0,
    11,
    [],
    [None],
    [1.5],
    [True],
    [11],
    ["x"],
    [[1]],
    {},
    {"x": 1},
    {"x": [True]},
    (),
    frozenset(),
    _Opaque(),
)


def _public_functions() -> list[tuple[str, Callable[..., Any]]]:
    found: list[tuple[str, Callable[..., Any]]] = []
    for name in MODULES:
        module = importlib.import_module(name)
        for fname, fn in inspect.getmembers(module, inspect.isfunction):
            if not fname.startswith("_") and fn.__module__ == name:
                found.append((f"{name}.{fname}", fn))
    return found


FUNCTIONS = _public_functions()


def _enum_classes() -> list[type[enum.Enum]]:
    out: dict[str, type[enum.Enum]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, enum.Enum) and obj.__module__.startswith("rules"):
                out[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(out.values())


ENUMS = _enum_classes()
CODES = sorted({str(m.value) for e in ENUMS for m in e if isinstance(m.value, str)})


def _sample_values() -> dict[type, st.SearchStrategy[Any]]:
    """Plausible instances of the rules' own value types, built through their public API."""
    from rules import combat, contests, health, sheet
    from rules.actions import ExtendedState, ExtendedStatus, start_extended

    actions_mod = importlib.import_module("rules.actions")

    # rules.d6 re-exports functions named like its modules (roll, chance): import the modules.
    d6chance = importlib.import_module("rules.d6.chance")
    d6combat = importlib.import_module("rules.d6.combat")
    initiative = importlib.import_module("rules.d6.initiative")
    projects = importlib.import_module("rules.d6.projects")
    d6roll = importlib.import_module("rules.d6.roll")

    mage = profiles.get("mage")
    faces = st.lists(st.integers(1, 10), min_size=1, max_size=8)
    d10_results = st.builds(
        lambda f, d, t, w: d10.resolve(f, difficulty=d, profile=mage, willpower=w, threshold=t),
        faces,
        st.integers(2, 10),
        st.integers(0, 2),
        st.booleans(),
    )
    tracks = st.lists(st.sampled_from(list(health.DamageType)), max_size=7).map(health.track_of)
    d6_results = st.lists(st.integers(1, 6), min_size=1, max_size=6).map(
        lambda f: d6roll.roll(len(f), faces=f)
    )
    combatants = st.lists(
        st.builds(
            initiative.Combatant,
            id=st.sampled_from(["A", "B", "C"]),
            alacrity=st.integers(1, 3),
        ),
        min_size=1,
        max_size=3,
        unique_by=lambda c: c.id,
    )
    rounds = combatants.map(lambda cs: initiative.start_round(cs, rng=random.Random(1)))
    return {
        profiles.Profile: st.sampled_from([profiles.get(n) for n in profiles.names()]),
        profiles.CombatOptions: st.just(profiles.CombatOptions()),
        profiles.MagickOptions: st.just(profiles.MagickOptions()),
        d10.D10Result: d10_results,
        health.HealthTrack: tracks,
        combat.Target: st.builds(combat.Target, stamina=st.integers(0, 5), track=tracks),
        combat.Situation: st.just(combat.Situation()),
        contests.DuelTraits: st.builds(
            contests.DuelTraits, st.integers(1, 5), st.integers(1, 5), st.integers(1, 10)
        ),
        contests.DuelState: st.just(contests.DuelState()),
        contests.ContestState: st.just(
            contests.start_contest(contests.ContestKind.RACE_TO_N, target=5)
        ),
        d6roll.D6Result: d6_results,
        d6combat.AttackResult: st.builds(
            lambda a, d: d6combat.resolve_attack(a, {"D": d}),
            st.integers(0, 4),
            st.integers(0, 4),
        ),
        d6chance.Difficulty: st.builds(
            d6chance.wound, st.sampled_from(sorted(d6chance.WOUND_KINDS)), st.integers(1, 4)
        ),
        projects.Project: st.integers(1, 5).map(projects.new_project),
        initiative.Combatant: combatants.map(lambda cs: cs[0]),
        initiative.Round: rounds,
        sheet.Sheet: st.sampled_from(list(sheet.SheetSystem)).map(sheet.new_sheet),
        ExtendedState: st.just(start_extended(5)),
        actions_mod.Trait: st.builds(
            actions_mod.Trait, st.sampled_from(list(actions_mod.TraitKind)), st.integers(0, 5)
        ),
        combat.AttackPlan: st.sampled_from(list(combat.Manoeuvre)).map(
            lambda m: combat.attack_plan(
                combat.AttackSetup(
                    code=m,
                    dexterity=3,
                    ability=2,
                    weapon_damage=4,
                    ammo=30,
                    blind_check=d10.resolve([9], difficulty=8, profile=mage),
                    vampire=m is combat.Manoeuvre.BITE,  # only a vampire bites (§B.13)
                ),
                mage,
            )
        ),
        combat.Combatant: st.sampled_from(["A", "B"]).map(
            lambda k: combat.Combatant(k, combat.initiative(2, 2, face=5))
        ),
        combat.Slot: st.builds(combat.Slot, st.sampled_from(["A", "B"]), st.integers(1, 3)),
        d6chance.Advantage: st.integers(1, 3).map(lambda m: d6chance.Advantage(magnitude=m)),
        d6chance.Chance: st.integers(0, 3).map(lambda p: d6chance.chance([p] if p else [])),
        d6combat.GainShare: st.builds(
            d6combat.GainShare,
            target=st.sampled_from(["A", "B"]),
            use=st.sampled_from(list(d6combat.GainUse)),
            amount=st.integers(0, 3),
        ),
        projects.Challenge: st.integers(1, 5).map(
            lambda n: projects.new_challenge(n, 2, ["A", "B"])
        ),
        ExtendedStatus: st.sampled_from(list(ExtendedStatus)),
        # The inputs a magick rule takes as one frozen value: each field plausible or junk.
        magick.Spell: st.deferred(lambda: _fields_of(magick.Spell)),
        magick.EffectParts: st.deferred(lambda: _fields_of(magick.EffectParts)),
    }


def _fields_of(kind: type[Any]) -> st.SearchStrategy[Any]:
    """An instance of a rules dataclass whose every field is plausible or junk."""
    hints = typing.get_type_hints(kind)
    return st.builds(kind, **{f.name: _value(hints[f.name]) for f in dataclasses.fields(kind)})


SAMPLES = _sample_values()
JUNK_STRATEGY = st.sampled_from(JUNK)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


HASHABLE_JUNK = st.sampled_from([j for j in JUNK if _hashable(j)])


def _plausible(hint: Any) -> st.SearchStrategy[Any]:
    """Values of roughly the hinted type, each of which may itself contain junk."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is type(None):
        return st.none()
    if origin in (typing.Union, types.UnionType):
        return st.one_of([_plausible(a) for a in args])
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(-2, 12) | st.sampled_from([0, 1, 20, 50, 1000])
    if hint is str:
        return st.sampled_from(CODES) | st.sampled_from(["A", "B", "x", "mage", "d6"])
    if hint is bytes:
        return st.just(b"{}")
    if inspect.isclass(hint) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint)) | st.sampled_from([str(m.value) for m in hint])
    if hint in SAMPLES:
        return SAMPLES[hint]
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin in (Sequence, list, Iterable, frozenset, set) and args:
        items = _value(args[0])
        if origin in (frozenset, set):
            items = items.filter(_hashable)
        lists = st.lists(items, max_size=6)
        return lists.map(frozenset) if origin in (frozenset, set) else lists | lists.map(tuple)
    if origin is tuple and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(_value(args[0]), max_size=6).map(tuple)
        return st.tuples(*[_value(a) for a in args])
    if origin in (Mapping, dict) and args:
        keys = st.one_of(_plausible(args[0]), HASHABLE_JUNK).filter(_hashable)
        return st.dictionaries(keys, _value(args[1]), max_size=4)
    if hint is typing.Any or hint is object:
        return st.integers(0, 10) | JUNK_STRATEGY
    if inspect.isclass(hint) and hint.__module__ == "rules.dice":
        return st.just(random.Random(7))
    return JUNK_STRATEGY


def _value(hint: Any) -> st.SearchStrategy[Any]:
    return st.one_of(_plausible(hint), JUNK_STRATEGY)


# The validators' bounds and expected types are the rules' own code, not player input.
CODE_ARGUMENTS: dict[tuple[str, str], st.SearchStrategy[Any]] = {
    ("rules.errors", "lo"): st.none() | st.integers(0, 5),
    ("rules.errors", "hi"): st.none() | st.integers(5, 10),
    ("rules.errors", "kind"): st.sampled_from([ErrorCode, profiles.BotchRule]),
}
# Everywhere: the name an error reports for the argument it checks.
CODE_NAMES: dict[str, st.SearchStrategy[Any]] = {
    "field": st.just("field"),
    "field_name": st.just("field"),
}


def _is_rng(name: str, hint: Any) -> bool:
    return name == "rng" or "Rng" in repr(hint)


def _arguments(fn: Callable[..., Any]) -> st.SearchStrategy[tuple[list[Any], dict[str, Any]]]:
    hints = typing.get_type_hints(fn)
    positional: list[st.SearchStrategy[Any]] = []
    required: dict[str, st.SearchStrategy[Any]] = {}
    keywords: dict[str, st.SearchStrategy[Any]] = {}
    for p in inspect.signature(fn).parameters.values():
        hint = hints.get(p.name, typing.Any)
        given_by_code = CODE_ARGUMENTS.get((fn.__module__, p.name), CODE_NAMES.get(p.name))
        if given_by_code is not None:
            if p.default is not p.empty:
                keywords[p.name] = given_by_code
            elif p.kind == p.KEYWORD_ONLY:
                required[p.name] = given_by_code
            else:
                positional.append(given_by_code)
            continue
        if _is_rng(p.name, hint):
            # An rng is injected code, not input: a caller passing a non-rng is a programming
            # error like passing a non-callable. Always give a real one.
            keywords[p.name] = st.just(random.Random(3))
            continue
        value = _value(hint)
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is not p.empty:
            keywords[p.name] = value
        elif p.kind == p.KEYWORD_ONLY:
            required[p.name] = value
        else:
            positional.append(value)
    named = st.fixed_dictionaries(required, optional=keywords)
    return st.tuples(st.tuples(*positional).map(list), named)


@contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def fail(signum: int, frame: Any) -> None:
        raise TimeoutError("a rules call ran for too long")

    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_the_introspection_finds_the_public_surface() -> None:
    names = {n for n, _ in FUNCTIONS}
    for expected in (
        "rules.d10.resolve",
        "rules.probability.d10",
        "rules.profiles.get",
        "rules.magick.difficulty.effect_difficulty",
        "rules.magick.paradox.paradox_gain",
        "rules.magick.backlash.backlash_tier",
        "rules.d6.initiative.initiative_order",
    ):
        assert expected in names
    assert len(FUNCTIONS) > 150


def test_the_packages_keep_their_public_names() -> None:
    """``rules.combat`` and ``rules.magick`` are packages by docs/rules.md section; what callers
    import from them stays where it was."""
    from rules import combat, d6, magick

    for module, names in (
        (magick, ("effect_difficulty", "paradox_gain", "backlash_tier", "cast")),
        (combat, ("initiative", "initiative_order", "attack_plan", "resolve_attack")),
        (d6, ("initiative_order",)),
    ):
        for name in names:
            assert callable(getattr(module, name)), name
        assert set(names) <= set(getattr(module, "__all__", names))


# Leaks in files this audit does not own, reported to their owner; xfail (not strict) so the
# fix turns them green without touching this file.
KNOWN_LEAKS: dict[str, str] = {}


def _param(name: str, fn: Callable[..., Any]) -> Any:
    if name in KNOWN_LEAKS:
        return pytest.param(name, fn, id=name, marks=pytest.mark.xfail(reason=KNOWN_LEAKS[name]))
    return pytest.param(name, fn, id=name)


@pytest.mark.parametrize(("name", "fn"), [_param(n, f) for n, f in FUNCTIONS])
def test_only_rules_input_error_escapes(name: str, fn: Callable[..., Any]) -> None:
    @settings(
        max_examples=40,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(_arguments(fn))
    def check(call: tuple[list[Any], dict[str, Any]]) -> None:
        args, kwargs = call
        error: RulesInputError | None = None
        try:
            with _time_limit(5):
                fn(*args, **kwargs)
        except RulesInputError as exc:
            error = exc
        if error is not None:
            assert isinstance(error.code, ErrorCode)
            assert isinstance(error.field, str)
            assert error.field

    check()


# The brief's literal vectors: the named invalid inputs each carry the code that says why.


def test_named_invalid_inputs_have_their_codes() -> None:
    from rules import probability

    mage = profiles.get("mage")
    six_point_oh: Any = 6.0
    cases: list[tuple[Callable[[], Any], ErrorCode]] = [
        (lambda: d10.resolve([11], difficulty=6, profile=mage), ErrorCode.FACE_VALUE),
        (lambda: d10.resolve([5], difficulty=1, profile=mage), ErrorCode.RANGE),
        (lambda: probability.d10(pool=-1, difficulty=6, profile=mage), ErrorCode.RANGE),
        (lambda: probability.d10(pool=True, difficulty=6, profile=mage), ErrorCode.TYPE),
        (lambda: d10.resolve([5], difficulty=six_point_oh, profile=mage), ErrorCode.TYPE),
        (lambda: profiles.get("vampire"), ErrorCode.UNKNOWN_PROFILE),
    ]
    for call, code in cases:
        with pytest.raises(RulesInputError) as info:
            call()
        assert info.value.code is code
