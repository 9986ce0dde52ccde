"""``/chronicle``: the session as Markdown and HTML, and the verify script over the Markdown."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from aiogram.methods import SendDocument
from aiogram.types import BufferedInputFile, InlineKeyboardMarkup

from handlers.combat.attack.callbacks import AtkAction, AtkCallback
from tests.handlers.conftest import Table, buttons, player
from tests.handlers.session.test_session import claim, feed_unseeded, say

ANNA = player(1, "Anna")
BORIS = player(2, "Bo`ris *")
ST = player(9, "Mira")
VERIFY = Path(__file__).resolve().parents[3] / "docs" / "verify_session.py"
SPAN = re.compile(r"`s1 d10 (-?\d+:\d+#\d+) = ([0-9 ]+)`")


def documents(table: Table) -> dict[str, bytes]:
    found = {}
    for call in table.session.of(SendDocument):
        assert isinstance(call.document, BufferedInputFile)
        found[call.document.filename or ""] = call.document.data
    return found


def run_verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(VERIFY), str(path)], capture_output=True, text=True, check=False
    )


async def play_session(table: Table) -> None:
    await claim(table)
    await say(table, ST, "/session start")
    await say(table, ANNA, "/r 7 6")
    await say(table, BORIS, "/r 5 8 wp")
    await say(table, ANNA, "/r 3 6")
    await say(table, ST, "/session end")


async def test_the_chronicle_of_a_session_checks_and_a_changed_die_does_not(
    table: Table, tmp_path: Path
) -> None:
    await play_session(table)
    await say(table, ANNA, "/chronicle")
    docs = documents(table)
    assert set(docs) == {"chronicle-session-1.md", "chronicle-session-1.html"}
    markdown = docs["chronicle-session-1.md"].decode()
    assert len(SPAN.findall(markdown)) == 3
    assert "Bo\\`ris \\*" in markdown  # a name can never open a code span
    page = docs["chronicle-session-1.html"].decode()
    assert page.startswith("<!doctype html>")
    assert "Anna" in page
    assert "<style>" in page
    honest = tmp_path / "honest.md"
    honest.write_text(markdown, encoding="utf-8")
    checked = run_verify(honest)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "3 rolls recomputed" in checked.stdout
    where, dice = SPAN.findall(markdown)[1]
    faces = dice.split()
    faces[0] = "2" if faces[0] == "1" else "1"
    changed = markdown.replace(f"{where} = {dice}`", f"{where} = {' '.join(faces)}`")
    assert changed != markdown
    tampered = tmp_path / "tampered.md"
    tampered.write_text(changed, encoding="utf-8")
    assert run_verify(tampered).returncode == 1


async def test_another_seed_fails_the_commitment(table: Table, tmp_path: Path) -> None:
    await play_session(table)
    await say(table, ANNA, "/chronicle")
    markdown = documents(table)["chronicle-session-1.md"].decode()
    seed = re.search(r"session 1 seed = ([0-9a-f]{64})", markdown)
    assert seed is not None
    other = ("0" if seed.group(1)[0] != "0" else "1") + seed.group(1)[1:]
    forged = tmp_path / "forged.md"
    forged.write_text(markdown.replace(seed.group(1), other), encoding="utf-8")
    assert run_verify(forged).returncode == 1


async def test_a_running_session_has_no_seed_to_check(table: Table, tmp_path: Path) -> None:
    await claim(table)
    await say(table, ST, "/session start")
    await say(table, ANNA, "/r 4 6")
    await say(table, ANNA, "/chronicle")
    markdown = documents(table)["chronicle-session-1.md"].decode()
    assert "seed =" not in markdown
    path = tmp_path / "running.md"
    path.write_text(markdown, encoding="utf-8")
    assert run_verify(path).returncode == 1


async def test_without_a_session_the_chronicle_says_how_to_start(table: Table) -> None:
    await say(table, ANNA, "/chronicle")
    assert "/session start" in table.session.sent[-1].text
    assert not documents(table)


async def test_the_whole_campaign(table: Table, tmp_path: Path) -> None:
    await table.say(ANNA, "/r 2 6")  # before any session: shown, not from a seed
    await play_session(table)
    await say(table, ANNA, "/chronicle campaign")
    markdown = documents(table)["chronicle-campaign.md"].decode()
    assert len(SPAN.findall(markdown)) == 3
    path = tmp_path / "campaign.md"
    path.write_text(markdown, encoding="utf-8")
    assert run_verify(path).returncode == 0


def test_verify_refuses_a_file_without_a_proof(tmp_path: Path) -> None:
    path = tmp_path / "empty.md"
    path.write_text("# nothing\n", encoding="utf-8")
    assert run_verify(path).returncode == 2


async def test_a_spell_in_the_chronicle_with_quintessence_and_paradox(
    table: Table, tmp_path: Path
) -> None:
    await claim(table)
    await say(table, ANNA, "/set арете 3 материя 2 силы 1 квинтэссенция 3")
    await say(table, ST, "/session start")
    await say(table, ANNA, "/m 2 вульг кв 1")
    await say(table, ST, "/session end")
    await say(table, ANNA, "/chronicle")
    markdown = documents(table)["chronicle-session-1.md"].decode()
    assert "магический Эффект" in markdown
    assert "потрачено Квинтэссенции: 1" in markdown
    assert "Магия" in markdown or "Magick" in markdown
    path = tmp_path / "spell.md"
    path.write_text(markdown, encoding="utf-8")
    assert run_verify(path).returncode == 0


async def unseeded_tap(table: Table, user: object, action: AtkAction, x: int) -> None:
    """A press on the attack panel with the session's dice (``table.tap`` seeds its own)."""
    mid, _text, markup = attack_panel(table)
    seeded = table.feed

    async def feed(**payload: Any) -> None:
        await feed_unseeded(table, **payload)

    for button in buttons(markup):
        data = button.callback_data or ""
        parsed = AtkCallback.unpack(data)
        if parsed.a is action and parsed.x == x:
            table.feed = feed  # type: ignore[method-assign]
            try:
                await table.tap(user, data, mid)  # type: ignore[arg-type]
            finally:
                table.feed = seeded  # type: ignore[method-assign]
            return
    raise AssertionError(f"no {action} button")


async def test_a_fight_in_the_chronicle_round_by_round_checks(table: Table, tmp_path: Path) -> None:
    """The attack panel's rolls come from the session's dice and are told under their round;
    the verify script recomputes them, and a die changed in one of them fails it."""
    await claim(table)
    await say(table, ANNA, "/set ловкость 4 смекалка 2 драка 3 сила 2 выносливость 2")
    await say(table, BORIS, "/set ловкость 2 смекалка 3 уклонение 2 выносливость 1")
    await say(table, ST, "/session start")
    await say(table, ANNA, "/init")
    await say(table, BORIS, "/init")
    await say(table, ANNA, "/atk")
    await unseeded_tap(table, ANNA, AtkAction.TARGET, 0)
    _mid, text, markup = attack_panel(table)
    if markup is not None and "защищается" in text:
        await unseeded_tap(table, BORIS, AtkAction.DEFEND, 0)  # no defence: damage and soak
    await say(table, ST, "/session end")
    await say(table, ANNA, "/chronicle")
    markdown = documents(table)["chronicle-session-1.md"].decode()
    assert "**Раунд 1:** " in markdown
    assert "— атака: " in markdown
    fight_spans = SPAN.findall(markdown)
    assert fight_spans  # the attack's dice at least, each with its proof
    honest = tmp_path / "fight.md"
    honest.write_text(markdown, encoding="utf-8")
    checked = run_verify(honest)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    where, dice = fight_spans[-1]
    faces = dice.split()
    faces[-1] = "2" if faces[-1] == "1" else "1"
    changed = markdown.replace(f"{where} = {dice}`", f"{where} = {' '.join(faces)}`")
    assert changed != markdown
    tampered = tmp_path / "fight-tampered.md"
    tampered.write_text(changed, encoding="utf-8")
    assert run_verify(tampered).returncode == 1


def attack_panel(table: Table) -> tuple[int, str, InlineKeyboardMarkup | None]:
    sent = [m for m in table.session.messages if "Атака" in (m.text or "")]
    assert sent, [m.text for m in table.session.messages]
    mid = sent[-1].message_id
    text, markup = sent[-1].text or "", sent[-1].reply_markup
    for edit in table.session.edits:
        if edit.message_id == mid:
            text, markup = edit.text, edit.reply_markup
    return mid, text, markup
