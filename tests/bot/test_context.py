"""The running update's context (bot/context.py): explicit, per task, and the only one."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from bot.context import UpdateContext, current, using

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("bot", "handlers", "rules")


def test_no_product_module_keeps_per_update_state_in_a_context_variable() -> None:
    # aiogram's own i18n keeps its locale in one; that is the library's, not ours.
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in PRODUCT
        for path in sorted((ROOT / package).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\bContextVar\b|\bcontextvars\b", line)
    ]
    assert found == []


def test_a_layer_sets_its_fields_for_its_block_and_puts_back_the_outer_ones() -> None:
    assert current() == UpdateContext()
    with using(actor=7, locale="ru") as outer:
        with using(locale="en", command=(-100, 5)) as inner:
            assert inner is outer is current()
            assert (current().actor, current().locale, current().command) == (7, "en", (-100, 5))
        assert (current().actor, current().locale, current().command) == (7, "ru", None)
    assert current() == UpdateContext()  # nothing left behind outside an update


def test_an_empty_context_outside_an_update_keeps_nothing_written_to_it() -> None:
    current().actor = 42
    assert current().actor == 0


async def test_two_updates_running_at_once_see_each_their_own() -> None:
    started = asyncio.Event()
    seen: dict[int, int] = {}

    async def update(actor: int) -> None:
        with using(actor=actor):
            if actor == 1:
                await started.wait()  # the second update sets its own while this one waits
            else:
                started.set()
            await asyncio.sleep(0)
            seen[actor] = current().actor

    await asyncio.gather(update(1), update(2))
    assert seen == {1: 1, 2: 2}
    assert current().actor == 0
