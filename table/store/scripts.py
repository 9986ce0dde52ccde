"""The Store's Lua scripts, called by name (ARCHITECTURE.md "The layers": store).

Each script is a file, ``table/store/lua/NAME.lua``, declared once here as a :class:`Lua`: the
names of its keys and arguments, in the order Redis receives them, and how its reply reads.
Nothing else knows a position. The loader puts three things before the file's body:

- ``KEY`` and ``ARG``, Lua tables of the keys and arguments by name (``KEY.journal``,
  ``ARG.token``); a script that takes a list after them (the live pointers a tap reads, the
  log lines a step writes) finds it under its own name too, as a Lua list;
- the constants it shares with the Python side (``CHAT_TTL`` and the script's own);
- ``lua/prelude.lua``, the helpers several scripts share (the send budget's reservation, the
  log's append with its counters, a flow's version check).

A script is registered with redis-py (``register_script``: EVALSHA, loaded again after a
SCRIPT FLUSH), and called with keyword arguments, one per name; a missing or unknown name is
a ``TypeError`` before anything is sent. On one server the calls asked in one turn of the
event loop go together in one of redis-py's pipelines (:class:`Batch`).

A call whose answer is lost (a command timeout, a dropped connection) is sent again by
redis-py's retry without knowing whether it ran. So every script that changes something is
safe to run twice: it either changes nothing the second time by itself (a compare-and-set
whose version moved, a maximum, a delete) or checks the update's journal, or the new key
only this call could have made, before it writes (ARCHITECTURE.md "Nothing lost, nothing
twice").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any, Generic, TypeVar

from redis.asyncio import Redis
from redis.asyncio.client import Pipeline
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError

from table.store.limits import ABOUT_CAP, ACTORS_KEPT, CHAT_TTL, LOG_TTL

R = TypeVar("R")

# The constants every script may use, as the Python side has them.
SHARED = {
    "CHAT_TTL": CHAT_TTL,
    "LOG_TTL": LOG_TTL,
    "ABOUT_CAP": ABOUT_CAP,
    "ACTORS_KEPT": ACTORS_KEPT,
}


@cache
def _text(name: str) -> str:
    return (resources.files("table.store") / "lua" / f"{name}.lua").read_text(encoding="utf-8")


def _table(name: str, source: str, names: tuple[str, ...], tail: str | None) -> str:
    fields = ", ".join(f"{n} = {source}[{i}]" for i, n in enumerate(names, 1))
    line = f"local {name} = {{{fields}}}\n"
    if tail is not None:
        line += f"{name}.{tail} = {{}}\n"
        line += f"for i = {len(names) + 1}, #{source} do\n"
        line += f"  {name}.{tail}[#{name}.{tail} + 1] = {source}[i]\nend\n"
    return line


class Lua(Generic[R]):
    """One script: its file, its keys' and arguments' names (then, optionally, the name of
    a list of keys and of a list of arguments after them) and how its reply reads."""

    def __init__(
        self,
        name: str,
        *,
        keys: tuple[str, ...],
        args: tuple[str, ...] = (),
        reply: Callable[[Any], R],
        key_list: str | None = None,
        arg_list: str | None = None,
        constants: Mapping[str, int] | None = None,
    ) -> None:
        self.name = name
        self.keys = keys
        self.args = args
        self.reply = reply
        self.key_list = key_list
        self.arg_list = arg_list
        self.constants = {**SHARED, **(constants or {})}
        self.names = frozenset((*keys, *args, *(n for n in (key_list, arg_list) if n)))
        if len(self.names) != len(keys) + len(args) + (key_list is not None) + (
            arg_list is not None
        ):
            raise ValueError(f"{name}: a name is used twice")

    @property
    def source(self) -> str:
        """The script as Redis runs it: the names, the constants, the prelude, the file."""
        header = _table("KEY", "KEYS", self.keys, self.key_list)
        header += _table("ARG", "ARGV", self.args, self.arg_list)
        header += "".join(f"local {k} = {v}\n" for k, v in sorted(self.constants.items()))
        return header + _text("prelude") + _text(self.name)

    def positions(self, named: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
        """The keys and arguments in the order the script reads them."""
        if named.keys() != self.names:
            missing = sorted(self.names - named.keys())
            unknown = sorted(named.keys() - self.names)
            raise TypeError(f"{self.name}: missing {missing}, unknown {unknown}")
        keys = [named[n] for n in self.keys]
        args = [named[n] for n in self.args]
        if self.key_list is not None:
            keys += named[self.key_list]
        if self.arg_list is not None:
            args += named[self.arg_list]
        return keys, args

    def bind(self, redis: Redis, batch: Batch | None = None) -> Bound[R]:
        """The script registered with ``redis``, once per client (:class:`Bound`); its calls
        go through ``batch`` when there is one."""
        source = self.source
        return Bound(self, source, redis.register_script(source), batch)


class Bound(Generic[R]):
    """A :class:`Lua` registered with a client: call it with every name as a keyword."""

    def __init__(
        self, lua: Lua[R], source: str, script: AsyncScript, batch: Batch | None = None
    ) -> None:
        self.lua = lua
        self.source = source
        self.script = script
        self.batch = batch

    async def __call__(self, **named: Any) -> R:
        keys, args = self.lua.positions(named)
        if self.batch is not None:
            return self.lua.reply(await self.batch.call(self.script, keys, args))
        return self.lua.reply(await self.script(keys=keys, args=args))

    def queue(self, pipe: Pipeline, **named: Any) -> None:
        """Queue the script into a transaction as an EVAL of its text: a pipeline that
        holds a registered script first asks the server whether it knows it, a round-trip
        more (its reply is the transaction's, not decoded here)."""
        keys, args = self.lua.positions(named)
        pipe.eval(self.source, len(keys), *keys, *args)


def flag(value: bool) -> str:
    """A yes/no argument as the scripts read it."""
    return "1" if value else ""


def pairs_of(items: Iterable[tuple[Any, Any]]) -> list[Any]:
    """Pairs flattened into one list of arguments (a script reads them two by two)."""
    return [x for pair in items for x in pair]


def as_int(reply: Any) -> int:
    return int(reply)


def as_bool(reply: Any) -> bool:
    return bool(reply)


def as_is(reply: Any) -> Any:
    return reply


# A script's call waiting in a batch: the script, its keys and arguments, and its answer.
_Call = tuple[AsyncScript, list[Any], list[Any], "asyncio.Future[Any]"]


class Batch:
    """The script calls of every running update asked in one turn of the event loop, sent
    together in one of redis-py's pipelines (not a transaction: each script is atomic by
    itself), each caller answered with its own reply or error.

    A roll is three scripts, one after another, and a table's updates run side by side: sent
    one by one, each call is a write and a wake-up of its own on both sides, and those were
    the largest share of a roll's CPU that an echo bot does not pay (bench/README.md). The
    first call of a turn waits that turn out for the others, then sends them with its own
    from its own task (a task of its own for each pipeline was a loop turn and a wake-up
    more); alone, it goes as a plain call, which costs less than a pipeline of one.
    The pipeline is redis-py's: its connection from the pool, its retry (the whole pipeline
    sent again once after a lost answer, which every script bears: module docstring), its
    errors; a script the server forgot (NOSCRIPT) is sent again by its own ``Script``, which
    loads it. A caller cancelled while waiting leaves its reply to nobody; the others' calls
    go on: given up on while it gathers them, the first caller leaves them to a task of their
    own, and given up on while their pipeline is out, the ones not answered yet are sent
    again by one (whether they ran is not known, as after a lost answer).
    """

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._gathering: list[_Call] | None = None  # the calls of this turn, while it lasts
        self._sending: set[asyncio.Task[None]] = set()

    async def call(self, script: AsyncScript, keys: list[Any], args: list[Any]) -> Any:
        loop = asyncio.get_running_loop()
        if self._gathering is not None:  # the turn's first call sends this one with it
            answer: asyncio.Future[Any] = loop.create_future()
            self._gathering.append((script, keys, args, answer))
            return await answer
        others: list[_Call] = []
        self._gathering = others
        try:
            await asyncio.sleep(0)  # the rest of this turn's calls join
        except BaseException:  # given up on: the others go all the same
            self._gathering = None
            if others:
                self._spawn(others)
            raise
        self._gathering = None
        if not others:
            return await script(keys=keys, args=args)
        own: asyncio.Future[Any] = loop.create_future()
        try:
            await self._send([(script, keys, args, own), *others])
        except BaseException:  # given up on with the pipeline out: the others are sent again
            unanswered = [call for call in others if not call[3].done()]
            if unanswered:
                self._spawn(unanswered)
            raise
        return await own  # answered by now: no wait

    def _spawn(self, batch: list[_Call]) -> None:
        task = asyncio.get_running_loop().create_task(self._send(batch))
        self._sending.add(task)  # held until done: the loop keeps only a weak reference
        task.add_done_callback(self._sending.discard)

    async def _send(self, batch: list[_Call]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for script, keys, args, _answer in batch:
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            replies = await pipe.execute(raise_on_error=False)  # given back to the pool after
        except Exception as error:  # the connection's: every call of the batch met it
            for *_call, answer in batch:
                if not answer.done():  # each caller its own error, with its own traceback
                    answer.set_exception(_copy(error))
            return
        forgotten: list[_Call] = []
        for call, reply in zip(batch, replies, strict=True):
            answer = call[3]
            if isinstance(reply, NoScriptError):
                forgotten.append(call)
            elif answer.done():
                continue
            elif isinstance(reply, Exception):
                answer.set_exception(reply)
            else:
                answer.set_result(reply)
        for script, keys, args, answer in forgotten:  # the others answered first
            await _settle(answer, script(keys=keys, args=args))


async def _settle(answer: asyncio.Future[Any], call: Awaitable[Any]) -> None:
    try:
        reply = await call
    except Exception as error:
        if not answer.done():
            answer.set_exception(error)
        return
    if not answer.done():
        answer.set_result(reply)


def _copy(error: Exception) -> Exception:
    try:
        return type(error)(*error.args)
    except TypeError:  # an error that cannot be made again from its arguments
        return error
