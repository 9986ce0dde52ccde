"""What a feature declares, and the set of them the composition root hands to the Dispatcher.

A feature (``handlers/<name>/``) is one folder that never imports another (ARCHITECTURE.md).
It says what it adds to the bot by one :class:`Feature` value: its router, its commands for
Telegram's menu (setMyCommands), its lines in ``/help``, the table rolls it offers to the
one-message wizard, and the hand-offs it serves to other features. ``handlers/__init__.py``
lists the features; :class:`FeatureSet` is injected into every handler as workflow data
(``features``), so a feature that needs another one (``/r``'s «Продлить» starts an extended
action; the wizard's «Бросить» starts the feature it was opened for) asks the set by a typed
key instead of importing it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Generic, TypeVar, cast

from aiogram import Router
from aiogram.types import BotCommand, Update
from aiogram.utils.i18n import I18n
from babel.support import LazyProxy

from rules import profiles
from rules.profiles import GameSystem, Profile
from rules.sheet import SheetSystem, system_of

F = TypeVar("F")
D10_ONLY = frozenset({GameSystem.D10})  # a help line for the d10 games only
D6_ONLY = frozenset({GameSystem.D6})
# The d10 games apart, for what only one of them has (its sheet: Mage's magick, a Dark Ages
# vampire's blood), as the features themselves tell them apart (``rules.sheet.system_of``).
MAGE_ONLY = frozenset({SheetSystem.MAGE})
DARK_AGES_ONLY = frozenset({SheetSystem.DARK_AGES})


def in_game(system: GameSystem) -> Callable[..., Awaitable[bool]]:
    """A filter: the chat plays ``system``. A d6 feature answers a command the d10 one also
    knows (``/r``, ``/init``) by standing before it with this filter. A coroutine, because
    aiogram runs a plain function filter in a thread pool: every /r paid for a thread hop."""

    async def playing(_event: object, profile: Profile) -> bool:
        return profile.system is system

    return playing


class HelpSection(IntEnum):
    """Where a help line stands in ``/help``; the order of the members is the order shown."""

    ROLLS = 1
    TABLE = 2
    SHEET = 3
    COMBAT = 4
    MAGICK = 5
    STORYTELLER = 6
    SETTINGS = 7


@dataclass(frozen=True)
class MenuCommand:
    """One entry of Telegram's command menu; ``description`` is a lazy catalogue string.

    ``rank`` places it in the menu (lower first): the menu reads in the order a table
    meets the commands (docs/product.md §2), which is not the order the routers must run in.
    ``systems`` are the games whose chat menu lists it: a chat playing another game than
    the default gets a menu of its own (``bot.commands.set_game_commands``), so a d6 feature
    declares its own entry for a command the d10 one also answers, in the d6 game's words
    (its chance, its GM); the menu for every chat takes the default game's entry of each.
    ``sheets`` narrow it to the d10 games whose sheet has what it works on (``MAGE_ONLY``:
    magick; ``DARK_AGES_ONLY``: blood), so a chat's menu never offers a command that would
    only answer "not in this game"."""

    name: str
    description: LazyProxy | str
    rank: int
    systems: frozenset[GameSystem] = frozenset(GameSystem)
    sheets: frozenset[SheetSystem] = frozenset(SheetSystem)


@dataclass(frozen=True)
class HelpLine:
    """One line of ``/help``: a function of the chat's profile (a default difficulty, the
    game's own words), shown only in the game systems listed."""

    section: HelpSection
    text: Callable[[Profile], str]
    systems: frozenset[GameSystem] = frozenset(GameSystem)
    sheets: frozenset[SheetSystem] = frozenset(SheetSystem)  # as MenuCommand's


class HandoffKey(Generic[F]):
    """A typed name for something one feature serves and another calls: the key's type
    parameter is the callable's type, so the caller is type-checked against the provider."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"HandoffKey({self.name!r})"


AfterUpdate = Callable[[Update, dict[str, Any]], Awaitable[None]]  # the update, its data


@dataclass(frozen=True)
class Feature:
    """Everything a feature adds to the bot, declared in its package's ``__init__``."""

    name: str
    make_router: Callable[[], Router]
    commands: Sequence[MenuCommand] = ()
    help: Sequence[HelpLine] = ()
    help_topics: Mapping[str, Callable[[Profile], str]] = field(default_factory=dict)
    provides: dict[HandoffKey[Any], Any] = field(default_factory=dict)
    # A tap on these buttons (by callback prefix) shows or changes the whole table at once (a
    # fight): the update reads ahead every sheet of the chat and these live messages with
    # their flows, in its first round-trip (table.store.journal.Prefetch).
    reads_ahead: Mapping[str, Sequence[str]] = field(default_factory=dict)
    # Run once every update's own work is done and sent (bot/watchers.py), with the update's
    # workflow data: the Storyteller's screen redrawn when the group changed what it shows.
    after_update: AfterUpdate | None = None


def _plays(profile: Profile, entry: MenuCommand | HelpLine) -> bool:
    """Whether a chat on ``profile`` is shown ``entry``."""
    return profile.system in entry.systems and system_of(profile) in entry.sheets


class FeatureSet:
    """The bot's features in order: routers, the command menu, ``/help`` and hand-offs."""

    def __init__(self, features: Iterable[Feature]) -> None:
        self.features = tuple(features)
        names = [feature.name for feature in self.features]
        if len(set(names)) != len(names):
            raise ValueError(f"two features share a name: {names}")
        entries = [
            (c.name, system)
            for feature in self.features
            for c in feature.commands
            for system in c.systems
        ]
        if len(set(entries)) != len(entries):
            raise ValueError(f"two menu entries of one command in one game: {entries}")
        self._handoffs: dict[str, Any] = {}
        self._reads_ahead: dict[str, tuple[str, ...]] = {}
        for feature in self.features:
            for prefix, lives in feature.reads_ahead.items():
                known = self._reads_ahead.get(prefix, ())
                self._reads_ahead[prefix] = (*known, *(n for n in lives if n not in known))
            for key, provider in feature.provides.items():
                if key.name in self._handoffs:
                    raise ValueError(f"two features provide {key.name!r}")
                self._handoffs[key.name] = provider

    def routers(self) -> list[Router]:
        """Each feature's router in order (``bot.fallback.routers`` adds the last one)."""
        return [feature.make_router() for feature in self.features]

    def command_names(self) -> frozenset[str]:
        """Every command of the menu, as typed after the slash."""
        return frozenset(c.name for feature in self.features for c in feature.commands)

    def after_updates(self) -> tuple[AfterUpdate, ...]:
        """What the features do once an update is done, in the features' order."""
        return tuple(f.after_update for f in self.features if f.after_update is not None)

    def handoff(self, key: HandoffKey[F]) -> F:
        """The provider registered for ``key``; a missing one is a wiring error."""
        try:
            return cast(F, self._handoffs[key.name])
        except KeyError:
            raise LookupError(f"no feature provides {key.name!r}") from None

    def has(self, key: HandoffKey[Any]) -> bool:
        return key.name in self._handoffs

    def reads_ahead(self, prefix: str) -> tuple[str, ...] | None:
        """The live messages a tap on buttons of ``prefix`` reads ahead with every sheet of
        the chat, or None for an ordinary tap (:attr:`Feature.reads_ahead`)."""
        return self._reads_ahead.get(prefix)

    def menu(self, i18n: I18n, locale: str, profile: Profile | None = None) -> list[BotCommand]:
        """The command menu in ``locale``: with ``profile``, that game's commands in its
        words; without, the menu for every chat: every command once, in the words of the
        default game's entry where it has one."""
        declared = [command for feature in self.features for command in feature.commands]
        if profile is not None:
            chosen = [command for command in declared if _plays(profile, command)]
        else:
            default = profiles.get(profiles.DEFAULT).system
            by_name: dict[str, MenuCommand] = {}
            for command in declared:
                held = by_name.get(command.name)
                if held is None or (default in command.systems and default not in held.systems):
                    by_name[command.name] = command
            chosen = list(by_name.values())
        with i18n.context(), i18n.use_locale(locale):
            return [
                BotCommand(command=command.name, description=str(command.description))
                for command in sorted(chosen, key=lambda command: command.rank)
            ]

    def help_topic(self, name: str) -> Callable[[Profile], str] | None:
        """``/help <name>``: the details a feature keeps off the one-screen help."""
        for feature in self.features:
            if name in feature.help_topics:
                return feature.help_topics[name]
        return None

    def help_lines(self, profile: Profile) -> dict[HelpSection, list[str]]:
        """Each section's lines for the chat's game, sections in order, lines in the order
        of the features and of their declarations."""
        found: dict[HelpSection, list[str]] = {}
        for section in HelpSection:
            lines = [
                line.text(profile)
                for feature in self.features
                for line in feature.help
                if line.section is section and _plays(profile, line)
            ]
            if lines:
                found[section] = lines
        return found
