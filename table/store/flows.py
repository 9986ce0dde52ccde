"""The state behind an interactive message: a flow (docs/product.md §3 "Concurrency").

Every button carries its flow's id and the version it was drawn at. A tap is applied by a
compare-and-set on that version, in one Lua script together with the log lines it writes,
so of two taps carrying the same version exactly one passes, and a lost compare-and-set logs
nothing. A step that spends from a character's sheet (Willpower, §A.7) is one WATCH
transaction over the flow and the sheet instead: a point never leaves the sheet without the
step, nor the step happen without the point.

Each feature's flow is a :class:`FlowState` model with a ``kind``; the models register
themselves by kind, so a kind names exactly one model and a stored flow is read back typed.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, cast

from pydantic import BaseModel, ConfigDict, ValidationError
from redis.asyncio.client import Pipeline

from rules.sheet import Sheet, SheetSystem, new_sheet, to_json
from table.scope import Campaign, Scope
from table.store import journaled
from table.store.base import (
    ACTORS_KEPT,
    FLOW_ID_BYTES,
    FLOW_TTL,
    dump,
    flow_key,
    live_key,
    log_key,
    none_key,
    pairs,
    sheet_key,
    stats_key,
    tag,
)
from table.store.journal import dump_spent
from table.store.log import LogEntry, LogStore, log_args
from table.store.scripts import Lua, as_bool, as_int, as_is, flag
from table.store.sheets import npc_field, npc_name_field, parse_sheet, player_field

S = TypeVar("S", bound="FlowState")

# A new flow's data is kept in pieces of at most this many bytes ("data", "data1", …): Redis
# keeps a hash whose values are all that short as one compact list (hash-max-listpack-value,
# 64 by default) instead of a table with an entry per field, about 40% less for a roll's
# result flow (bench/footprint.py). A step writes its data whole and drops the pieces.
DATA_PIECE = 64
# The key, inside a flow's stored data, of the message the flow is drawn in (:attr:`Flow.message`):
# kept beside the feature's state so that no script has to know of it.
MESSAGE_KEY = "@message"


def data_fields(raw: str) -> dict[str, str]:
    """The data JSON as a new flow's fields: whole if short, else in pieces of at most
    :data:`DATA_PIECE` bytes, cut between characters."""
    if len(raw.encode()) <= DATA_PIECE:
        return {"data": raw}
    if raw.isascii():  # a byte a character: cut every DATA_PIECE
        cut = [raw[i : i + DATA_PIECE] for i in range(0, len(raw), DATA_PIECE)]
        return {("data" if n == 0 else f"data{n}"): piece for n, piece in enumerate(cut)}
    pieces: list[str] = []
    start = size = 0
    for index, char in enumerate(raw):
        width = len(char.encode())
        if size + width > DATA_PIECE:
            pieces.append(raw[start:index])
            start, size = index, 0
        size += width
    pieces.append(raw[start:])
    return {("data" if n == 0 else f"data{n}"): piece for n, piece in enumerate(pieces)}


def _joined(fields: Mapping[Any, Any]) -> str:
    parts = [fields["data"]]
    while (piece := fields.get(f"data{len(parts)}")) is not None:
        parts.append(piece)
    return "".join(parts)


def _with_message(raw: str) -> tuple[dict[str, Any], str | None]:
    """A stored data JSON as the feature's state and the message the flow recorded."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        return data, None
    message = data.pop(MESSAGE_KEY, None)
    return data, message if isinstance(message, str) else None


def data_of(fields: Mapping[Any, Any]) -> str:
    """A flow's data JSON from its hash, whole or in pieces (:func:`data_fields`): the
    feature's state alone, without the message the flow recorded (:attr:`Flow.message`)."""
    raw = _joined(fields)
    if f'"{MESSAGE_KEY}"' not in raw:
        return raw
    return dump(_with_message(raw)[0])


# A tap's step (with a new flow it opens), once per update: lua/advance.lua.
ADVANCE = Lua(
    "advance",
    keys=("flow", "new_flow", "log", "stats", "journal", "live"),
    args=(
        "expected", "data", "close", "actor", "screen", "mark",
        "new_fields", "new_id", "new_ttl", "log_cap", "tally", "ends_live", "flow_id",
    ),
    arg_list="entries",
    reply=as_is,
)  # fmt: skip
CREATE_FLOW = Lua(
    "create_flow",
    keys=("flow", "log", "journal", "stats"),
    args=("ttl", "step", "record", "fields", "log_cap", "tally"),
    arg_list="entries",
    reply=as_int,
)
KEEP_SCREEN = Lua("keep_screen", keys=("flow",), args=("screen",), reply=as_int)
SHOW_LIVE = Lua("show_live", keys=("live",), args=("flow", "message", "ttl"), reply=as_bool)
CREATE_LIVE = Lua(
    "create_live",
    keys=("live", "flow", "journal"),
    args=("expected", "pointer", "ttl", "step", "success", "failure"),
    arg_list="fields",
    reply=as_bool,
)
ADVANCE_SPENDING = Lua(
    "advance_spending",
    keys=("flow", "sheets", "log", "also", "stats", "journal", "live"),
    args=(
        "expected", "data", "close", "actor", "screen", "mark",
        "field", "raw", "had", "sheet", "name_field", "name", "spent_field", "spent",
        "also_version", "also_data", "also_screen", "also_strict", "log_cap", "tally",
        "ends_live", "flow_id",
    ),
    arg_list="entries",
    reply=as_is,
)  # fmt: skip


def step_mark(scope: Scope, flow: Flow, expected_version: int) -> tuple[str, str]:
    """(the running update's journal, or a placeholder outside one; its mark of the step
    that moves ``flow`` on from ``expected_version``, '' outside an update): the same step
    sent again finds its mark and is not taken twice (lua/advance.lua)."""
    running = scope.journal
    # On a cluster a script's keys share one slot: an update of another chat (a private
    # chat's) leaves its steps here unmarked.
    if running is None or f":{tag(flow.campaign)}:" not in running.key:
        return none_key(flow.campaign), ""
    running.marked = True
    return running.key, f"cas:{flow.id}:{expected_version}"


class FlowStateError(ValueError):
    """A flow read as a model it is not (another kind, or data that does not validate):
    a forged or stale button, answered as an invalid one."""


class FlowState(BaseModel):
    """The base of every feature's flow model; a subclass sets ``kind`` and is registered."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ClassVar[str] = ""
    registry: ClassVar[dict[str, type[FlowState]]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        kind = cls.__dict__.get("kind")
        if not kind:
            return
        known = FlowState.registry.get(kind)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise TypeError(f"flow kind {kind!r} is both {known.__name__} and {cls.__name__}")
        FlowState.registry[kind] = cls


class Screen(BaseModel):
    """What the message shows at a flow's version: its HTML text and inline keyboard (as the
    Bot API's JSON). Stored with the version that drew it, so a message whose edit failed can
    be redrawn by the next tap on it, whichever feature it belongs to (docs/product.md §3)."""

    model_config = ConfigDict(frozen=True)

    text: str
    markup: dict[str, Any] | None = None


class Live(BaseModel):
    """Where a chat's one live message of a kind stands: its flow and, once sent, its message."""

    flow: str
    message: int | None = None


@dataclass(frozen=True)
class AlsoStep:
    """A second flow's step taken with another's (the tracker's health after a wound)."""

    flow: Flow
    version: int
    state: FlowState | Mapping[str, Any]
    screen: Screen | None
    # The step stands or falls with this one (a point of Willpower and the round's mark of
    # it, docs/rules.md §A.7): a second flow moved since the read stores nothing at all,
    # where a tracker's health line alone would be skipped.
    strict: bool = False


class AlsoMoved(Exception):
    """The second flow of a strict :class:`AlsoStep` moved since it was read: nothing was
    stored, and the caller reads it again."""


@dataclass(frozen=True)
class StepWrites:
    """What a step writes besides the flow's new state: whether it closes the flow, the
    log's new entries, the screen it shows and a second flow's step (:class:`AlsoStep`)."""

    close: bool = False
    entries: Sequence[LogEntry] = ()
    screen: Screen | None = None
    also: AlsoStep | None = None
    # A flow the step opens (made by ``new_flow``), stored in the same transaction.
    opens: Flow | None = None
    opens_ttl: int = FLOW_TTL
    # The chat's live message of this name ends with the step (a finished fight): its
    # pointer goes in the same write, if it still names the flow.
    ends_live: str | None = None


@dataclass(frozen=True)
class LiveAhead:
    """A live message as an update read it ahead: the pointer's raw JSON (None: none), and
    its flow and pointer when that flow is open."""

    raw: str | None
    flow: Flow | None = None
    live: Live | None = None


def _live(raw: str | bytes | None) -> Live | None:
    if raw is None:
        return None
    try:
        return Live.model_validate_json(raw)
    except ValidationError:
        return None


class Flow(BaseModel):
    """An interactive message's stored state: who owns it, which version a button must carry."""

    id: str
    kind: str
    chat_id: int
    owner_id: int
    version: int
    data: dict[str, Any]
    # The forum topic whose campaign it plays in (None: the chat's own game); its key, not
    # its hash, says so, as it says the chat.
    thread_id: int | None = None
    closed: bool = False
    # (version it produced, user id) of the last steps: who already acted on which drawing.
    actors: tuple[tuple[int, int], ...] = ()
    screen: Screen | None = None
    # The language its message is drawn in, chosen when it was opened (bot/i18n.py); None
    # for a flow stored before flows kept one.
    locale: str | None = None
    # The message it is drawn in ("chat:message", or "inline:" and the inline message's id),
    # recorded by the first step the runner stores (bot/runner.py): a press under any other
    # message is refused. None until then.
    message: str | None = None

    @property
    def campaign(self) -> Campaign:
        """The campaign it plays in: its keys' slot, where its messages are posted."""
        return Campaign(self.chat_id, self.thread_id)

    def acted_since(self, version: int, user_id: int) -> bool:
        """Whether ``user_id`` moved this flow on after ``version``: their tap on a button
        drawn at ``version`` is then a repeat, not a new press."""
        return any(made > version and actor == user_id for made, actor in self.actors)

    def next(self, state: FlowState | Mapping[str, Any], *, close: bool = False) -> Flow:
        """This flow as it will be one step on, for drawing its buttons before the step."""
        return self.model_copy(
            update={"version": self.version + 1, "data": _data(state), "closed": close}
        )

    def state(self, model: type[S]) -> S:
        """The data as ``model``; :class:`FlowStateError` if the flow is not of that kind.
        The data was stored as JSON and is read as JSON, so the strict models of ``rules``
        (a tuple of faces) read back what they wrote."""
        if self.kind != model.kind:
            raise FlowStateError(f"a {self.kind!r} flow is not {model.kind!r}")
        try:
            return model.model_validate_json(json.dumps(self.data))
        except ValidationError as error:
            raise FlowStateError(str(error)) from None


@dataclass(frozen=True)
class SheetSpend:
    """What a step takes off a character's sheet, applied in the step's transaction.

    ``change`` is a pure change of the sheet (``rules.sheet.spend_willpower``) that raises
    ``RulesInputError`` when the resource is not there (then nothing is written), or returns
    None when the sheet does not track the resource (the step goes on, nothing is spent). A
    character with no sheet spends nothing. ``npc`` names the Storyteller's NPC; otherwise
    the sheet is ``user_id``'s."""

    user_id: int
    system: SheetSystem
    change: Callable[[Sheet], Sheet | None]
    npc: str | None = None
    # A character with no sheet yet gets a blank one, changed, in the same step (a wound
    # or a condition lands on an NPC the Storyteller never wrote down): no round-trip first.
    create: bool = False

    def field(self) -> str:
        if self.npc is not None:
            return npc_field(self.system, self.npc)
        return player_field(self.user_id, self.system)

    def name_field(self) -> tuple[str, str] | None:
        """The NPC's name as typed, written beside a sheet this step creates (list_npcs)."""
        if self.npc is None:
            return None
        return npc_name_field(self.system, self.npc), " ".join(self.npc.split())


def _actors(raw: str | None) -> tuple[tuple[int, int], ...]:
    found: list[tuple[int, int]] = []
    for item in (raw or "").split():
        made, _, actor = item.partition(":")
        if made.isdigit() and actor.lstrip("-").isdigit():
            found.append((int(made), int(actor)))
    return tuple(found)


def _screen(raw: str | None) -> Screen | None:
    if not raw:
        return None
    try:
        return Screen.model_validate_json(raw)
    except ValidationError:
        return None


def _flow_from_hash(flow_id: str, fields: Mapping[Any, Any], chat_id: Campaign) -> Flow:
    """The flow from its hash; ``chat_id`` is the chat of its key (a new flow's hash does not
    repeat it, nor ``closed`` until it is)."""
    data, message = _with_message(_joined(fields))
    return Flow(
        id=flow_id,
        kind=fields["kind"],
        chat_id=int(fields.get("chat_id") or chat_id.chat_id),
        thread_id=chat_id.thread_id,
        owner_id=int(fields["owner_id"]),
        version=int(fields["version"]),
        data=data,
        closed=fields.get("closed") == "1",
        actors=_actors(fields.get("actors")),
        screen=_screen(fields.get("screen")),
        locale=fields.get("locale") or None,
        message=message,
    )


def _data(state: FlowState | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(state, FlowState):
        return state.model_dump(mode="json")
    return {k: v for k, v in state.items() if k != MESSAGE_KEY}


def _document(flow: Flow, state: FlowState | Mapping[str, Any]) -> str:
    """The data a step stores for ``flow``: the new state, and the message the flow is drawn
    in, which every step carries on."""
    data = _data(state)
    if flow.message is not None:
        data[MESSAGE_KEY] = flow.message
    return dump(data)


class FlowStore(LogStore):
    def _read_flow(self, flow_id: str, fields: Mapping[Any, Any], chat_id: int | Campaign) -> Flow:
        """A stored flow as this update draws it: in the chat's pinned language when it
        pinned one, else in the one it was opened in (bot/i18n.py ``drawing``)."""
        flow = _flow_from_hash(flow_id, fields, self.at(chat_id))
        pinned = self.scope.pinned
        if pinned is not None and pinned != flow.locale:
            return flow.model_copy(update={"locale": pinned})
        return flow

    def register_scripts(self) -> None:
        self._advance = ADVANCE.bind(self.redis, self.batch)
        self._create_flow = CREATE_FLOW.bind(self.redis, self.batch)
        self._keep_screen = KEEP_SCREEN.bind(self.redis, self.batch)
        self._show_live = SHOW_LIVE.bind(self.redis, self.batch)
        self._create_live = CREATE_LIVE.bind(self.redis, self.batch)
        self._advance_spending = ADVANCE_SPENDING.bind(self.redis, self.batch)

    @staticmethod
    def _new_fields(flow: Flow) -> dict[str, str]:
        """A new flow's hash. The chat is the key's, and a flow is open until a step says
        otherwise: a roll's result keeps only what is its own (bench/footprint.py)."""
        return {
            "kind": flow.kind,
            "owner_id": str(flow.owner_id),
            "version": str(flow.version),
            **({"closed": "1"} if flow.closed else {}),
            **data_fields(_document(flow, flow.data)),
            "locale": flow.locale or "",
        }

    def _queue_flow(self, pipe: Pipeline, flow: Flow, ttl: int) -> None:
        key = flow_key(flow.campaign, flow.id)
        mapping: dict[Any, Any] = self._new_fields(flow)
        pipe.hset(key, mapping=mapping)
        pipe.expire(key, ttl)

    def _new_flow(self, state: FlowState, chat_id: int | Campaign, owner_id: int) -> Flow:
        if not type(state).kind:
            raise TypeError(f"{type(state).__name__} has no flow kind")
        # 72 random bits: a collision within a flow's one-day life is not a practical concern,
        # and the id fits callback_data (≤ 64 bytes) with room for the action and version.
        return Flow(
            id=secrets.token_urlsafe(FLOW_ID_BYTES),
            kind=type(state).kind,
            chat_id=self.at(chat_id).chat_id,
            thread_id=self.at(chat_id).thread_id,
            owner_id=owner_id,
            version=0,
            data=_data(state),
            locale=self.scope.locale,
        )

    async def create_flow(
        self,
        state: FlowState,
        chat_id: int | Campaign,
        owner_id: int,
        *,
        entries: Sequence[LogEntry] = (),
        ttl: int = FLOW_TTL,
    ) -> Flow:
        """A new flow and its log lines in one round-trip (the ≤ 3 budget of docs/product.md §5),
        recorded in the running update's journal as :func:`journaled.pipeline` does."""
        flow = self._new_flow(state, chat_id, owner_id)
        record = self.scope.journal
        if record is not None and f":{tag(self.at(chat_id))}:" not in record.key:
            record = None  # another chat's update (the Storyteller's private chat): another slot
        step = record.next_step() if record is not None else 0
        if record is not None and step in record.steps:
            return cast(Flow, record.decode(record.steps[step]))
        journaled.forget(self.scope)
        await self._create_flow(
            flow=flow_key(self.at(chat_id), flow.id),
            log=log_key(self.at(chat_id)),
            journal=record.key if record is not None else none_key(self.at(chat_id)),
            stats=stats_key(self.at(chat_id)),
            ttl=ttl,
            step=f"fx:{step}" if record is not None else "",
            record=record.encode(flow) if record is not None else "",
            fields=dump(self._new_fields(flow)),
            **log_args(self.scope, entries),
        )
        return flow

    async def create_flow_spending(
        self,
        state: FlowState,
        chat_id: int | Campaign,
        owner_id: int,
        spend: SheetSpend,
        *,
        entries: Sequence[LogEntry] = (),
        ttl: int = FLOW_TTL,
        also: AlsoStep | None = None,
    ) -> tuple[Flow, Sheet | None]:
        """:meth:`create_flow` that also applies ``spend`` in the same transaction; the sheet
        after the spend, or None when nothing was spent. ``also``: a second flow's step taken
        with it (the round's mark of a point of Willpower), only if that flow is still at its
        version, else :class:`AlsoMoved` and nothing is written."""
        flow = self._new_flow(state, chat_id, owner_id)
        key = sheet_key(self.at(chat_id))
        field = spend.field()
        akey = flow_key(also.flow.chat_id, also.flow.id) if also is not None else None

        async def apply(pipe: Pipeline) -> Sheet | None:
            beside = await pipe.hgetall(akey) if akey is not None else {}
            if also is not None and not _at(beside, also.version):
                raise AlsoMoved
            updated = self._spent(parse_sheet(await pipe.hget(key, field)), spend)
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            if updated is not None:
                pipe.hset(key, field, to_json(updated))
            if also is not None and akey is not None:
                data = _document(also.flow, also.state)
                # nobody's tap: the round's mark, as a health line's redraw (advance_spending)
                _stepped(pipe, akey, beside, also.version, data, False, also.screen, actor=0)
            self._queue_flow(pipe, flow, ttl)
            self._queue_log(pipe, chat_id, tuple(entries))
            return updated

        return flow, await self._watched([key] + ([akey] if akey else []), apply)

    async def _spend_as_read(
        self,
        flow: Flow,
        expected_version: int,
        data: str,
        writes: StepWrites,
        skey: str,
        field: str,
        whole: Mapping[str, str],
        spend: SheetSpend,
    ) -> tuple[Flow | None, Sheet | None] | None:
        """:meth:`advance_flow_spending` in one script on the sheet read ahead; None when
        the sheet changed since (the caller takes the WATCH way)."""
        close, screen, entries, also = writes.close, writes.screen, writes.entries, writes.also
        raw = whole.get(field)
        updated = self._spent(parse_sheet(raw), spend)
        running = self.scope.journal
        spending = running.spending if running is not None else []
        record = (
            (f"sp:{flow.id}:{expected_version}", dump_spent(spending))
            if running is not None and spending
            else ("", "")
        )
        spending.clear()
        where, mark = step_mark(self.scope, flow, expected_version)
        named = spend.name_field() or ("", "")
        journaled.forget(self.scope)
        reply = await self._advance_spending(
            flow=flow_key(flow.campaign, flow.id),
            sheets=skey,
            log=log_key(flow.campaign),
            also=flow_key(also.flow.campaign, also.flow.id) if also else none_key(flow.campaign),
            stats=stats_key(flow.campaign),
            journal=running.key if running is not None else where,
            expected=expected_version,
            data=data,
            close="1" if close else "0",
            actor=self.scope.actor_id,
            screen=screen.model_dump_json() if screen is not None else "",
            mark=mark,
            field=field,
            raw=raw or "",
            had=flag(raw is not None),
            sheet=to_json(updated) if updated is not None else "",
            name_field=named[0],
            name=named[1],
            spent_field=record[0],
            spent=record[1],
            also_version=also.version if also is not None else "",
            also_data=_document(also.flow, also.state) if also is not None else "",
            also_screen=also.screen.model_dump_json() if also and also.screen else "",
            also_strict=flag(also is not None and also.strict),
            **_ending(flow, writes.ends_live),
            **log_args(self.scope, entries),
        )
        if reply == "sheet":
            return None
        if not reply:
            return None, None
        return self._read_flow(flow.id, pairs(reply), flow.campaign), updated

    async def open_live(
        self,
        name: str,
        state: FlowState,
        chat_id: int | Campaign,
        owner_id: int,
        *,
        ttl: int = FLOW_TTL,
    ) -> tuple[Flow, Live, bool]:
        """The chat's open live flow called ``name`` with where it is shown, or a new one made
        from ``state`` (then True): two players opening it at once get one and the same."""
        ahead = self.live_ahead(chat_id, name)
        if ahead is not None and ahead.flow is not None and ahead.live is not None:
            return ahead.flow, ahead.live, False
        key = live_key(self.at(chat_id), name)

        async def apply(pipe: Pipeline) -> tuple[Flow, Live, bool]:
            pointer = _live(await pipe.get(key))
            if pointer is not None:
                fields = await pipe.hgetall(flow_key(self.at(chat_id), pointer.flow))
                if fields and fields.get("closed") != "1":
                    return self._read_flow(pointer.flow, fields, chat_id), pointer, False
            flow = self._new_flow(state, chat_id, owner_id)
            fresh = Live(flow=flow.id)
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            self._queue_flow(pipe, flow, ttl)
            pipe.set(key, fresh.model_dump_json(), ex=ttl)
            return flow, fresh, True

        return await self._watched(key, apply)

    def live_ahead(self, chat_id: int | Campaign, name: str) -> LiveAhead | None:
        """The chat's live flow ``name`` as this update read it ahead (a combat tap), or None
        when it was not read ahead; good until the update's first write."""
        prefetch = self.scope.prefetch
        ahead = prefetch.live(live_key(self.at(chat_id), name)) if prefetch is not None else None
        if ahead is None:
            return None
        raw, fields = ahead
        pointer = _live(raw)
        if pointer is None or not fields or fields.get("closed") == "1":
            return LiveAhead(raw=raw)
        return LiveAhead(raw=raw, flow=self._read_flow(pointer.flow, fields, chat_id), live=pointer)

    def locale_ahead(self, chat_id: int | Campaign, flow_id: str) -> str | None:
        """The language of the flow a button names, as this update read it ahead (a peek: the
        handler still gets the flow from :meth:`load_flow`); None when it was not read ahead
        or keeps no language."""
        prefetch = self.scope.prefetch
        fields = (
            prefetch.flows.get(flow_key(self.at(chat_id), flow_id))
            if prefetch is not None
            else None
        )
        return (fields or {}).get("locale") or None

    def new_flow(self, state: FlowState, chat_id: int | Campaign, owner_id: int) -> Flow:
        """A flow not stored yet (:meth:`create_live` stores it with its message)."""
        return self._new_flow(state, chat_id, owner_id)

    async def create_live(
        self,
        name: str,
        flow: Flow,
        message_id: int,
        screen: Screen,
        *,
        expected: str | None,
        ttl: int = FLOW_TTL,
    ) -> Live | None:
        """Store a new live flow whose message is already sent — the flow with its screen and
        the chat's pointer at the message — in one round-trip, if the pointer is still the
        one read ahead (``expected``); None when another update got there first."""
        live = Live(flow=flow.id, message=message_id)
        fields: list[Any] = []
        for key, value in {
            "kind": flow.kind,
            "chat_id": flow.chat_id,
            "owner_id": flow.owner_id,
            "version": flow.version,
            "closed": "0",
            "data": _document(flow, flow.data),
            "locale": flow.locale or "",
            "screen": screen.model_dump_json(),
        }.items():
            fields += [key, value]
        record = self.scope.journal
        step = record.next_step() if record is not None else 0
        if record is not None and step in record.steps:
            return cast(Live | None, record.decode(record.steps[step]))
        journaled.forget(self.scope)
        made = await self._create_live(
            live=live_key(flow.campaign, name),
            flow=flow_key(flow.campaign, flow.id),
            journal=record.key if record is not None else none_key(flow.campaign),
            expected=expected or "",
            pointer=live.model_dump_json(),
            ttl=ttl,
            step=f"fx:{step}" if record is not None else "",
            success=record.encode(live) if record is not None else "",
            failure=record.encode(None) if record is not None else "",
            fields=fields,
        )
        return live if made else None

    async def load_live(self, chat_id: int | Campaign, name: str) -> tuple[Flow, Live] | None:
        """The chat's open live flow called ``name`` and where it is shown, if there is one."""
        ahead = self.live_ahead(chat_id, name)
        if ahead is not None:
            return (ahead.flow, ahead.live) if ahead.flow and ahead.live else None
        pointer = _live(await self.redis.get(live_key(self.at(chat_id), name)))
        if pointer is None:
            return None
        flow = await self.load_flow(chat_id, pointer.flow)
        if flow is None or flow.closed:
            return None
        return flow, pointer

    async def show_live(
        self,
        chat_id: int | Campaign,
        name: str,
        flow_id: str,
        message_id: int,
        *,
        ttl: int = FLOW_TTL,
    ) -> bool:
        """Record the message now showing the live flow (sent or re-posted at the bottom);
        False when the chat's live flow is another one by now."""
        return await self._show_live(
            live=live_key(self.at(chat_id), name), flow=flow_id, message=message_id, ttl=ttl
        )

    async def load_flow(self, chat_id: int | Campaign, flow_id: str) -> Flow | None:
        """The chat's flow ``flow_id`` (a button's); None when the chat has no such flow."""
        key = flow_key(self.at(chat_id), flow_id)
        prefetch = self.scope.prefetch
        ahead = prefetch.flow(key) if prefetch is not None else None
        fields = ahead if ahead is not None else await self.redis.hgetall(key)
        if not fields:
            return None
        return self._read_flow(flow_id, fields, chat_id)

    async def advance_flow(
        self,
        flow: Flow,
        expected_version: int,
        state: FlowState | Mapping[str, Any],
        *,
        close: bool = False,
        entries: Sequence[LogEntry] = (),
        screen: Screen | None = None,
        ends_live: str | None = None,
    ) -> Flow | None:
        """Compare-and-set: the new Flow (version + 1), or None if stale, closed or expired;
        ``entries`` go to the flow's chat log only when the set succeeds (oldest first),
        ``screen`` is what the message will show at the new version, and ``ends_live`` names
        the chat's live message that ends with the step (its pointer goes with it)."""
        stepped, _opened = await self._advance_step(
            flow,
            expected_version,
            _document(flow, state),
            close=close,
            screen=screen,
            entries=entries,
            ends_live=ends_live,
        )
        return stepped

    async def advance_flow_creating(
        self,
        flow: Flow,
        expected_version: int,
        state: FlowState | Mapping[str, Any],
        new: Flow,
        *,
        close: bool = False,
        screen: Screen | None = None,
        entries: Sequence[LogEntry] = (),
        ttl: int = FLOW_TTL,
    ) -> tuple[Flow | None, Flow]:
        """:meth:`advance_flow` that also stores ``new`` (made by :meth:`new_flow`, closed
        already if it is) and its log lines, only if the step is taken: a tap that opens
        another flow (the d6 tracker's attack; a hand-over closing this flow, ``close``, with
        the other flow drawn as its ``screen``) stays within one write (the ≤ 3 round-trips of
        docs/product.md). Gives the flow stepped (None: stale) and the new flow as stored: an
        update run again after a crash gets the one its first run opened, not ``new``."""
        stepped, opened = await self._advance_step(
            flow,
            expected_version,
            _document(flow, state),
            close=close,
            screen=screen,
            entries=entries,
            new={
                "new_flow": flow_key(new.campaign, new.id),
                "new_fields": json.dumps(self._new_fields(new)),
                "new_id": new.id,
                "new_ttl": ttl,
            },
        )
        if opened not in ("", "1", new.id):
            new = new.model_copy(update={"id": opened})
        return stepped, new

    async def _advance_step(
        self,
        flow: Flow,
        expected_version: int,
        data: str,
        *,
        close: bool = False,
        screen: Screen | None = None,
        entries: Sequence[LogEntry] = (),
        new: Mapping[str, Any] | None = None,
        ends_live: str | None = None,
    ) -> tuple[Flow | None, str]:
        """The compare-and-set of :meth:`advance_flow` (with ``new``, the keys and arguments
        of the flow it opens), once per update (lua/advance.lua); the flow stepped and the id
        of the flow the step opened ("1": none)."""
        where, mark = step_mark(self.scope, flow, expected_version)
        opening = new or {
            "new_flow": none_key(flow.campaign),
            **dict.fromkeys(("new_fields", "new_id", "new_ttl"), ""),
        }
        journaled.forget(self.scope)
        reply = await self._advance(
            flow=flow_key(flow.campaign, flow.id),
            log=log_key(flow.campaign),
            stats=stats_key(flow.campaign),
            journal=where,
            expected=expected_version,
            data=data,
            close="1" if close else "0",
            actor=self.scope.actor_id,
            screen=screen.model_dump_json() if screen is not None else "",
            mark=mark,
            **opening,
            **_ending(flow, ends_live),
            **log_args(self.scope, entries),
        )
        if not reply:
            return None, ""
        fields = pairs(reply)
        opened = str(fields.pop(":opened"))  # the flow the step opened, by its id as stored
        return self._read_flow(flow.id, fields, flow.campaign), opened

    async def keep_screen(self, flow: Flow, screen: Screen) -> None:
        """What a closed flow's message now shows (a hand-off drew another flow into it), so a
        late tap on the old buttons redraws the message instead of finding it dead."""
        journaled.forget(self.scope)
        await self._keep_screen(
            flow=flow_key(flow.campaign, flow.id), screen=screen.model_dump_json()
        )

    async def close_flow(
        self, flow: Flow, expected_version: int, *, screen: Screen | None = None
    ) -> Flow | None:
        """Close the flow as it is (its buttons stop working); None if another tap won."""
        return await self.advance_flow(flow, expected_version, flow.data, close=True, screen=screen)

    async def advance_flow_spending(
        self,
        flow: Flow,
        expected_version: int,
        state: FlowState,
        spend: SheetSpend,
        *,
        writes: StepWrites | None = None,
        more: Sequence[SheetSpend] = (),
    ) -> tuple[Flow | None, Sheet | None]:
        """:meth:`advance_flow` that also applies ``spend``, in one WATCH transaction over
        the flow and the sheets: a stale version spends nothing. ``writes``: the rest of
        the step (its ``also``: a second flow that shows the change, the round tracker's
        health, moved in the same step when it is still at its version). ``more``: other
        characters' changes in the same step (a gain split among several foes). A combat tap
        that read every sheet ahead does all of it in one script on the sheet as read (and
        reads again only if the sheet changed since)."""
        stepped, sheet, _opened = await self.advance_flow_spending_opening(
            flow, expected_version, state, spend, writes=writes, more=more
        )
        return stepped, sheet

    async def advance_flow_spending_opening(
        self,
        flow: Flow,
        expected_version: int,
        state: FlowState,
        spend: SheetSpend,
        *,
        writes: StepWrites | None = None,
        more: Sequence[SheetSpend] = (),
    ) -> tuple[Flow | None, Sheet | None, Flow | None]:
        """:meth:`advance_flow_spending`, and the flow the step opened (``writes.opens``) as
        stored: an update run again after a crash gets the one its first run opened (the
        journal holds what the transaction returned), not the one it has just made anew."""
        writes = writes or StepWrites()
        close, entries, screen, also = writes.close, writes.entries, writes.screen, writes.also
        fkey, skey = flow_key(flow.campaign, flow.id), sheet_key(flow.campaign)
        field = spend.field()
        data = _document(flow, state)
        prefetch = self.scope.prefetch
        whole = prefetch.whole(skey) if prefetch is not None else None
        if whole is not None and not more and writes.opens is None:
            done = await self._spend_as_read(
                flow, expected_version, data, writes, skey, field, whole, spend
            )
            if done is not None:
                return (*done, None)

        akey = flow_key(also.flow.campaign, also.flow.id) if also is not None else None
        opens = writes.opens
        lkey = live_key(flow.campaign, writes.ends_live) if writes.ends_live else None

        async def apply(pipe: Pipeline) -> tuple[Flow | None, Sheet | None, Flow | None]:
            fields = await pipe.hgetall(fkey)
            beside = await pipe.hgetall(akey) if akey is not None else {}
            if not _at(fields, expected_version) or (
                also is not None and not _at(beside, also.version)
            ):
                pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                return None, None, None
            pointer = _live(await pipe.get(lkey)) if lkey is not None else None
            current = parse_sheet(await pipe.hget(skey, field))
            created = current is None
            updated = self._spent(current, spend)
            others = [
                (
                    other.field(),
                    self._spent(parse_sheet(await pipe.hget(skey, other.field())), other),
                )
                for other in more
            ]
            pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            actor = self.scope.actor_id
            change = _stepped(pipe, fkey, fields, expected_version, data, close, screen, actor)
            if also is not None and akey is not None:
                _stepped(
                    pipe,
                    akey,
                    beside,
                    also.version,
                    _document(also.flow, also.state),
                    False,
                    also.screen,
                    actor,
                )
            if updated is not None:
                pipe.hset(skey, field, to_json(updated))
                if created and (named := spend.name_field()) is not None:
                    pipe.hset(skey, *named)
            for other_field, other_sheet in others:
                if other_sheet is not None:
                    pipe.hset(skey, other_field, to_json(other_sheet))
            if opens is not None:
                self._queue_flow(pipe, opens, writes.opens_ttl)
            if lkey is not None and pointer is not None and pointer.flow == flow.id:
                pipe.delete(lkey)
            self._queue_log(pipe, flow.campaign, tuple(entries))
            pieces = _pieces(fields)
            new: dict[Any, Any] = {
                **{k: v for k, v in fields.items() if k not in pieces},
                **change,
            }
            return self._read_flow(flow.id, new, flow.campaign), updated, opens

        watched = [fkey, skey] + [key for key in (akey, lkey) if key is not None]
        stored: tuple[Any, ...] = await self._watched(watched, apply)
        if len(stored) == 2:  # recorded by the release before the opened flow was returned
            return stored[0], stored[1], opens
        return stored[0], stored[1], stored[2]

    def _spent(self, current: Sheet | None, spend: SheetSpend) -> Sheet | None:
        if current is None:
            if not spend.create:
                return None
            current = new_sheet(spend.system)
        updated = spend.change(current)
        journaled.note_spent(self.scope, spend.field(), current, updated)
        return updated


def open_at(fields: Mapping[Any, Any], version: int) -> bool:
    """Whether a flow's hash, as read under WATCH, is open at ``version``."""
    return _at(fields, version)


def queue_close(
    pipe: Pipeline, flow: Flow, fields: Mapping[Any, Any], screen: Screen, actor: int
) -> None:
    """Queue the close of ``flow`` as it is, at its version, on its hash as read under WATCH
    (``fields``), keeping ``screen``: the step of a press whose change is another record's
    (the Storyteller's seat in the chat's settings) in that record's own transaction."""
    key = flow_key(flow.campaign, flow.id)
    _stepped(pipe, key, fields, flow.version, _document(flow, flow.data), True, screen, actor)


def _ending(flow: Flow, ends_live: str | None) -> dict[str, Any]:
    """The keys and arguments that end the chat's live message ``ends_live`` with a step."""
    live = live_key(flow.campaign, ends_live) if ends_live else none_key(flow.campaign)
    return {"live": live, "ends_live": flag(ends_live is not None), "flow_id": flow.id}


def _at(fields: Mapping[Any, Any], version: int) -> bool:
    """Whether a flow's hash is open at ``version``: a step expecting it may be taken."""
    return bool(fields) and int(fields["version"]) == version and fields.get("closed") != "1"


def _pieces(fields: Mapping[Any, Any]) -> list[str]:
    return [str(k) for k in fields if str(k).startswith("data") and str(k)[4:].isdigit()]


def _stepped(
    pipe: Pipeline,
    key: str,
    fields: Mapping[Any, Any],
    version: int,
    data: str,
    close: bool,
    screen: Screen | None,
    actor: int,
) -> dict[Any, Any]:
    """Queue a flow's step on its hash as read under WATCH (the new version, data, actors and
    screen; its old data pieces dropped); the fields it changed. ``actor``: who took the
    step (the update's presser, or 0 for a mark the bot keeps, such as a round's Willpower)."""
    made = version + 1
    actors = f"{fields.get('actors') or ''!s} {made}:{actor}"
    if len(actors) > ACTORS_KEPT:
        actors = actors[actors.index(" ", len(actors) - ACTORS_KEPT) :]
    change: dict[Any, Any] = {
        "version": made,
        "data": data,
        "closed": "1" if close else "0",
        "actors": actors,
        "screen": screen.model_dump_json() if screen is not None else "",
    }
    pipe.hset(key, mapping=change)
    pieces = _pieces(fields)
    if pieces:
        pipe.hdel(key, *pieces)
    return change
