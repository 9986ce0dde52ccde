"""A scripted combat round through the real bot: what it costs in messages and Redis.

PRODUCT.md §5 holds a group to about 20 messages a minute, so a round of play must send
only a few new messages and edit the rest; every Redis round-trip is latency a player waits
for. This script plays one round with six participants — four players and two NPCs rolling
initiative, six declarations, an attack on the panel opened from the tracker, six «Дальше»
and «Новый раунд» — against the fake Bot API and a fresh redis-server, and prints, per
step: the new messages, the edits and the Redis round-trips (counted from ``MONITOR`` as
``bench/e2e.py`` counts them: a MULTI…EXEC is one).

Exit status 1 if the round sent more than two new messages (the tracker and the attack
panel); ``--strict`` also fails when a tap takes more than three round-trips (PRODUCT.md §5).
Run: ``.venv/bin/python bench/combat.py`` (about ten seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from bench.e2e import Monitor, count_round_trips  # noqa: E402
from localapi.processes import BotProcess, RedisServer  # noqa: E402
from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser  # noqa: E402

MESSAGE_TARGET = 2
ROUND_TRIP_TARGET = 3
# The delivery keeps every fetched update in the inbox before confirming it to Telegram
# (PRODUCT.md §5 "nothing lost"): one write per fetched batch, and a look for orphans every
# few seconds; neither is part of handling a tap.
INBOX_WRITE = re.compile(r'"(hset|hgetall)" "sdb:inbox:', re.IGNORECASE)
# A connection the pool opens meanwhile (for that look for orphans) greets the server first.
HANDSHAKE = re.compile(r'\] "(ping|hello|client)"', re.IGNORECASE)


@dataclass
class Step:
    name: str
    sent: int
    edits: int
    round_trips: int  # everything the bot sent to Redis while the step ran
    handling: int  # the same without the delivery's inbox write (one per fetched batch)
    tap: bool
    groups: list[list[str]]


class Round:
    def __init__(self, api: FakeBotApi, chat: FakeChat, redis: RedisServer) -> None:
        self.api = api
        self.chat = chat
        self.redis = redis
        self.steps: list[Step] = []

    def _counts(self) -> tuple[int, int]:
        calls = [c for c in self.api.calls_for_chat(self.chat) if c.applied]
        return (
            sum(1 for c in calls if c.method == "sendMessage"),
            sum(1 for c in calls if c.method == "editMessageText"),
        )

    async def _quiet(self) -> None:
        """Until the bot has made no call for a moment: the step's edits are all in."""
        last = -1
        while len(self.api.calls) != last:
            last = len(self.api.calls)
            await asyncio.sleep(0.15)

    async def measure(self, name: str, act: object, *, tap: bool) -> None:
        sent, edits = self._counts()
        async with Monitor(self.redis.port) as monitor:
            await act  # type: ignore[misc]
            await self._quiet()
        _client, _lua, trips, groups = count_round_trips(monitor.lines)
        inbox = sum(
            1 for line in monitor.lines if INBOX_WRITE.search(line) or HANDSHAKE.search(line)
        )
        now_sent, now_edits = self._counts()
        step = Step(name, now_sent - sent, now_edits - edits, trips, trips - inbox, tap, groups)
        self.steps.append(step)

    async def say(self, user: FakeUser, text: str) -> None:
        """A command whose answer may be an edit: waits until the bot is quiet again."""
        self.api.send_text(self.chat, user, text)
        await asyncio.sleep(0.1)
        await self._quiet()

    async def press(self, user: FakeUser, message: ChatMessage, label: str) -> None:
        data = next(b["callback_data"] for b in message.buttons if label in b["text"])
        query = self.api.press(self.chat, user, message, data)
        await self.api.wait_for_callback_answer(query, 10)


def tracker_of(chat: FakeChat) -> ChatMessage:
    return next(m for m in reversed(chat.messages) if m.text.startswith("⚔️ Бой"))


def panel_of(chat: FakeChat) -> ChatMessage | None:
    return next((m for m in reversed(chat.messages) if "Атака:" in m.text), None)


def name_marked(text: str, mark: str) -> str:
    for line in text.splitlines():
        if mark in line and " — " in line:
            return line.split(mark, 1)[1].split(" — ", 1)[0].strip()
    raise LookupError(mark)


async def play(api: FakeBotApi, redis: RedisServer) -> list[Step]:
    master = api.add_user("Мастер", language_code="ru")
    names = ("Аня", "Борис", "Вера", "Глеб")
    players = {n: api.add_user(n, language_code="ru") for n in names}
    chat = api.add_group("Бенчмарк боя", owner=master, members=list(players.values()))
    chat.bot_is_admin = True
    game = Round(api, chat, redis)
    for user in players.values():
        await game.say(user, "/set ловкость 3 смекалка 2 драка 2 сила 2 выносливость 2 атлетизм 1")
    await game.say(master, "/st")

    for name, user in players.items():
        await game.measure(f"/init ({name})", game.say(user, "/init"), tap=False)
    await game.measure("/init npc Гуль 5 x2", game.say(master, "/init npc Гуль 5 x2"), tap=False)
    tracker = tracker_of(chat)
    await game.measure("«Заявки»", game.press(master, tracker, "Заявки"), tap=True)
    for _ in range(6):
        declarer = name_marked(tracker.text, "✍️")
        who = players.get(declarer, master)
        await game.measure(
            f"«Заявлено» ({declarer})", game.press(who, tracker, "Заявлено"), tap=True
        )
    acting = name_marked(tracker.text, "▶️")
    actor = players.get(acting, master)
    await game.measure("«Атака» on the tracker", game.press(actor, tracker, "Атака"), tap=True)
    panel = panel_of(chat)
    if panel is not None and panel.buttons:
        target = next(b["text"] for b in panel.buttons if b["text"].startswith("🎯"))
        await game.measure("panel: target", game.press(actor, panel, target), tap=True)
        await game.measure("panel: «Атака»", game.press(actor, panel, "⚔️ Атака"), tap=True)
        if "защищается" in panel.text:  # the Storyteller lets the target take it
            await game.measure(
                "panel: «Без защиты»", game.press(master, panel, "Без защиты"), tap=True
            )
        if "Бросить урон" in " ".join(panel.button_texts):
            await game.measure(
                "panel: «Бросить урон»", game.press(actor, panel, "Бросить урон"), tap=True
            )
        if "Поглотить" in " ".join(panel.button_texts):
            await game.measure(
                "panel: «Поглотить»", game.press(master, panel, "Поглотить"), tap=True
            )
    # The one acting is knocked down and gets up; the last in the order interrupts for a point
    # of Willpower (the sheets track none: taken on trust, nothing spent).
    if "Дальше" in " ".join(tracker.button_texts):
        acting = name_marked(tracker.text, "▶️")
        await game.measure("«Состояния»", game.press(master, tracker, "Состояния"), tap=True)
        await game.measure("conditions: whom", game.press(master, tracker, acting), tap=True)
        await game.measure(
            "conditions: knockdown", game.press(master, tracker, "нокдаун"), tap=True
        )
        await game.measure("conditions: «Назад»", game.press(master, tracker, "Назад"), tap=True)
        await game.measure(
            f"«Встать» ({acting})",
            game.press(players.get(acting, master), tracker, "Встать"),
            tap=True,
        )
    if "Прерывание" in " ".join(tracker.button_texts):
        await game.measure("«Прерывание»", game.press(master, tracker, "Прерывание"), tap=True)
        await game.measure(
            "interruption: −1 Willpower", game.press(master, tracker, "−1 Сила Воли"), tap=True
        )
    for _ in range(6):
        if "Дальше" not in " ".join(tracker.button_texts):
            break
        name = name_marked(tracker.text, "▶️")
        await game.measure(f"«Дальше» ({name})", game.press(master, tracker, "Дальше"), tap=True)
    await game.measure("«Новый раунд»", game.press(master, tracker, "Новый раунд"), tap=True)
    return game.steps


async def main(arguments: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="fail on a missed round-trip target")
    parser.add_argument("--verbose", action="store_true", help="print each step's commands")
    options = parser.parse_args(arguments)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as directory:
        redis = RedisServer(Path(directory) / "redis")
        (Path(directory) / "redis").mkdir()
        async with FakeBotApi() as api:
            await redis.start()
            env = {
                "BOT_TOKEN": api.token,
                "TELEGRAM_API_URL": api.base_url,
                "REDIS_URL": redis.url,
                "DEFAULT_LOCALE": "ru",
                "LOG_LEVEL": "WARNING",
            }
            process = BotProcess(env, Path(directory) / "bot.log")
            since = time.monotonic()
            await process.start()
            try:
                await process.wait_until(
                    lambda: any(c.at >= since for c in api.calls_to("getUpdates")),
                    30,
                    what="polling",
                )
                steps = await play(api, redis)
            finally:
                await process.stop()
                await redis.stop()
    sent = sum(s.sent for s in steps)
    edits = sum(s.edits for s in steps)
    taps = [s for s in steps if s.tap]
    print(f"{'step':34} {'new msgs':>8} {'edits':>6} {'redis trips':>12} {'handling':>9}")
    for step in steps:
        print(
            f"{step.name:34} {step.sent:>8} {step.edits:>6} {step.round_trips:>12}"
            f" {step.handling:>9}"
        )
        if options.verbose:
            for group in step.groups:
                print("    " + " | ".join(group))
    worst = max((s.handling for s in taps), default=0)
    mean = sum(s.handling for s in taps) / max(len(taps), 1)
    total_mean = sum(s.round_trips for s in taps) / max(len(taps), 1)
    verdict = "met" if sent <= MESSAGE_TARGET else "MISSED"
    print(f"\nnew messages in the round: {sent} (target <= {MESSAGE_TARGET}: {verdict})")
    print(f"edits in the round: {edits}")
    trips_verdict = "met" if worst <= ROUND_TRIP_TARGET else "MISSED"
    print(
        f"redis round-trips handling a tap: mean {mean:.2f}, worst {worst} "
        f"(target <= {ROUND_TRIP_TARGET}: {trips_verdict}); with the inbox write of its "
        f"delivery: mean {total_mean:.2f}"
    )
    print(f"(total {time.monotonic() - started:.0f} s)")
    failed = sent > MESSAGE_TARGET or (options.strict and worst > ROUND_TRIP_TARGET)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
