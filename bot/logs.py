"""The process's log: plain text for a person at a terminal, or one JSON object per line for
a log collector (``LOG_FORMAT=json``, README "Settings").

A collector wants every line to parse, so in JSON mode nothing leaves on its own line
beside the records: a traceback is a field of its record, and Python's warnings and an
uncaught exception go through logging too. Each record carries ``time``, ``level``,
``logger`` and ``message``; a record written while an update runs also carries the
update's id and chat (:func:`about_update`), and the one line that closes an update
(bot/delivery.py) its ``outcome``.

aiogram writes its own line per try at an update ("Update id=… is handled. Duration …");
the delivery's closing line says the same once per update with its outcome, so aiogram's is
dropped (:class:`FoldAiogramUpdates`) rather than doubling the log.

Standard library only: ``python -m bot`` sets logging up before anything heavy is imported.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Literal

LogFormat = Literal["text", "json"]
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Record attributes a line carries when they are known (``extra=`` or :func:`about_update`).
FIELDS = ("update_id", "chat", "kind", "outcome", "duration_ms", "tries")

# What the update each task runs is about, for its log lines only; read by
# :class:`UpdateFields`. Keyed by task: nothing leaks into tasks started meanwhile.
_about: dict[asyncio.Task[Any], dict[str, Any]] = {}


@contextmanager
def about_update(update_id: int, chat: int | None) -> Iterator[None]:
    """Every record written by this task inside the block names the update and its chat."""
    try:
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    if task is None:
        yield
        return
    before = _about.get(task)
    _about[task] = {"update_id": update_id, "chat": chat}
    try:
        yield
    finally:
        if before is None:
            _about.pop(task, None)
        else:
            _about[task] = before


class UpdateFields(logging.Filter):
    """Adds the running update's id and chat to a record that does not name them itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            task = asyncio.current_task()
        except RuntimeError:
            return True
        about = _about.get(task) if task is not None else None
        if about:
            for name, value in about.items():
                if not hasattr(record, name):
                    setattr(record, name, value)
        return True


class FoldAiogramUpdates(logging.Filter):
    """Drops aiogram's per-try "Update id=… is handled" line: bot/delivery.py writes one
    line per update instead, with the outcome of its last try."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name == "aiogram.event" and str(record.msg).startswith("Update id="))


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            value = getattr(record, name, None)
            if value is not None:
                line[name] = value
        if record.exc_info:
            line["error"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.exc_text:
            line["error"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False, default=str)


def formatter(log_format: LogFormat) -> logging.Formatter:
    return JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)


def setup(level: str, log_format: LogFormat = "text") -> None:
    """The root logger writes to stderr at ``level``, as text or JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format))
    handler.addFilter(UpdateFields())
    handler.addFilter(FoldAiogramUpdates())
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # aiogram's only lines under a warning are the per-try ones the handler folds away: not
    # made at all, a record and its filters on every update's hot path saved.
    logging.getLogger("aiogram.event").setLevel(logging.WARNING)
    if log_format == "json":
        logging.captureWarnings(True)  # a warning is a record, not a line of its own
        sys.excepthook = _log_uncaught


def _log_uncaught(
    kind: type[BaseException], error: BaseException, trace: TracebackType | None
) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, error, trace)
        return
    logging.getLogger("bot").critical("uncaught exception", exc_info=(kind, error, trace))


def failure_line(message: str, log_format: LogFormat) -> str:
    """The one line a start-up that cannot go on ends with (bot/__main__.py): ``bot: …``,
    or in JSON mode a record whose message is that line."""
    text = f"bot: {message}"
    if log_format != "json":
        return text
    record = logging.LogRecord("bot", logging.CRITICAL, __file__, 0, text, None, None)
    return JsonFormatter().format(record)
