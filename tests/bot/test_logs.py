"""The log's two forms (bot/logs.py): text by default, one JSON object per line with
LOG_FORMAT=json, the running update named in each record, aiogram's per-try line folded."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import pytest

from bot import logs


@pytest.fixture
def captured() -> Iterator[tuple[io.StringIO, logging.Handler]]:
    """A handler set up as logs.setup sets up the root one, writing into a buffer."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logs.UpdateFields())
    handler.addFilter(logs.FoldAiogramUpdates())
    root = logging.getLogger()
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    try:
        yield stream, handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


async def test_json_lines_name_the_update_and_fold_aiogram_s(
    captured: tuple[io.StringIO, logging.Handler],
) -> None:
    stream, handler = captured
    handler.setFormatter(logs.formatter("json"))
    with logs.about_update(812, -100123):
        logging.getLogger("bot.runner").info("a step, with «ёлки» and\na second line")
        logging.getLogger("aiogram.event").info(
            "Update id=%s is %s. Duration %d ms by bot id=%d", 812, "handled", 12, 42
        )
        try:
            raise ValueError("bug")
        except ValueError:
            logging.getLogger("bot.delivery").exception("update 812 failed")
    logging.getLogger("bot.delivery").info(
        "update 812 (message): ok", extra={"update_id": 812, "outcome": "ok", "chat": -100123}
    )
    logging.getLogger("bot").info("outside any update")

    lines = stream.getvalue().splitlines()
    records = [json.loads(line) for line in lines]  # every line one JSON object
    assert len(records) == 4  # aiogram's "Update id=… is handled" folded away
    step, failure, closing, outside = records
    assert {"time", "level", "logger", "message"} <= set(step)
    assert step["time"].endswith("+00:00")
    assert step["message"] == "a step, with «ёлки» and\na second line"
    assert (step["update_id"], step["chat"]) == (812, -100123)
    assert failure["level"] == "ERROR"
    assert "ValueError: bug" in failure["error"]
    assert closing["outcome"] == "ok"
    assert "update_id" not in outside


async def test_the_update_named_is_the_task_s_own(
    captured: tuple[io.StringIO, logging.Handler],
) -> None:
    stream, handler = captured
    handler.setFormatter(logs.formatter("json"))

    async def run(update_id: int) -> None:
        with logs.about_update(update_id, update_id * 10):
            await asyncio.sleep(0)
            logging.getLogger("bot").info("running %d", update_id)

    await asyncio.gather(run(1), run(2))
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert {(r["message"], r["update_id"], r["chat"]) for r in records} == {
        ("running 1", 1, 10),
        ("running 2", 2, 20),
    }


def test_text_stays_the_default(captured: tuple[io.StringIO, logging.Handler]) -> None:
    stream, handler = captured
    handler.setFormatter(logs.formatter("text"))
    logging.getLogger("bot").info("plain")
    assert stream.getvalue().rstrip().endswith(" INFO bot: plain")


def test_the_failure_line_in_either_form() -> None:
    assert logs.failure_line("invalid settings: X", "text") == "bot: invalid settings: X"
    record = json.loads(logs.failure_line("invalid settings: X", "json"))
    assert record["message"] == "bot: invalid settings: X"
    assert record["level"] == "CRITICAL"


def test_aiogram_s_per_try_line_is_not_even_made_but_its_errors_are_kept() -> None:
    root = logging.getLogger()
    event = logging.getLogger("aiogram.event")
    handlers, level, event_level = list(root.handlers), root.level, event.level
    try:
        logs.setup("DEBUG")
        assert logging.getLogger("bot").isEnabledFor(logging.DEBUG)
        assert not event.isEnabledFor(logging.INFO)
        assert event.isEnabledFor(logging.ERROR)
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
        event.setLevel(event_level)
