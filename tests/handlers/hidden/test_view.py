"""Hidden rolls drawn without a bot: what the group sees (a commitment only), the
Storyteller's private result, the reveal and how to check it, the campaign picker."""

from __future__ import annotations

import hashlib

from aiogram.utils.i18n import I18n

from handlers.hidden import view
from rules import d6, d10, profiles
from table import commitment
from table.scope import Campaign
from table.store import HiddenRecord
from tests.handlers.views import buttons, speaking

MAGE = profiles.HOUSE_MAGE
RESULT = d10.resolve([10, 7, 2], 6, MAGE)
PAYLOAD = commitment.hidden_roll(
    chat_id=-100,
    seq=3,
    profile="mage",
    pool=3,
    difficulty=6,
    threshold=0,
    willpower=False,
    faces=RESULT.faces,
).payload()
COMMITMENT, NONCE = commitment.commit(PAYLOAD, bytes(32))
RECORD = HiddenRecord(
    seq=3,
    chat_id=-100,
    owner_id=1,
    name="Рита & <к>",
    profile="mage",
    pool=3,
    payload=PAYLOAD,
    nonce=NONCE,
    commitment=COMMITMENT,
    result=RESULT.model_dump(mode="json"),
)


def test_the_group_sees_who_the_number_and_the_commitment_only(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        ru = view.hidden_group_text(RECORD.name, 3, COMMITMENT)
    assert ru.splitlines() == [
        "🤫 Рита &amp; &lt;к&gt; бросает втайне: тайный бросок №3.",
        f"Отпечаток SHA-256: <code>{COMMITMENT}</code>",
        "После /reveal любой сможет проверить, что результат не подменили.",
    ]
    with speaking(i18n, "en"):
        en = view.hidden_group_text(RECORD.name, 3, COMMITMENT)
    assert en.startswith("🤫 Рита &amp; &lt;к&gt; rolled in secret: hidden roll #3.\n")
    for text in (ru, en):
        assert "10" not in text.replace(COMMITMENT, "")  # no face leaks


def test_the_storyteller_reads_the_whole_result_in_private(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        note = view.hidden_effect_note(3, 2)
        ru = view.hidden_private_text(RECORD, RESULT, "Хроника <1>", MAGE, note=note)
        keyboard = view.reveal_keyboard(Campaign(-100), 3)
    assert ru.splitlines() == [
        "🤫 Тайный бросок №3 в «Хроника &lt;1&gt;»",
        "🎲 Рита &amp; &lt;к&gt;: 3к10, сложность 6 (стандартно)",
        "<b>10</b> <b>7</b> 2",
        "<b>Средний успех</b>: 2 успеха",
        "✨ Эффект Сферы 3: Парадокс +2",
        f"Отпечаток в группе: <code>{COMMITMENT}</code>",
        "Раскрыть его можно кнопкой или командой /reveal в группе.",
    ]
    assert buttons(keyboard) == [("📢 Раскрыть", "hr:-100:3")]
    with speaking(i18n, "en"):
        en = view.hidden_private_text(RECORD, RESULT, "Chronicle", MAGE)
        assert buttons(view.reveal_keyboard(Campaign(-100), 3)) == [("📢 Reveal", "hr:-100:3")]
    assert en.splitlines()[0] == "🤫 Hidden roll #3 in «Chronicle»"
    assert "<b>Moderate success</b>: 2 successes" in en
    assert en.endswith("Publish it with the button or /reveal in the group.")


def test_a_d6_hidden_roll_reads_as_a_d6_roll(i18n: I18n) -> None:
    result = d6.roll(2, faces=(6, 2))
    with speaking(i18n, "ru"):
        text = view.hidden_private_text(RECORD, result, "Д6", profiles.D6)
    assert "<b>6</b> 2" in text
    assert "1 мера успеха" in text
    assert "к10" not in text


def test_the_reveal_shows_the_line_whose_hash_is_the_commitment(i18n: I18n) -> None:
    line = commitment.reveal_line(PAYLOAD, NONCE)
    assert hashlib.sha256(line.encode()).hexdigest() == COMMITMENT
    with speaking(i18n, "ru"):
        ru = view.reveal_text(RECORD, RESULT, MAGE)
    assert ru.splitlines()[0] == "📢 Тайный бросок №3 раскрыт:"
    assert f"<code>{line}</code>" in ru
    assert ru.splitlines()[-1] == f"В терминале: <code>printf '%s' '{line}' | sha256sum</code>"
    with speaking(i18n, "en"):
        en = view.reveal_text(RECORD, RESULT, MAGE)
    assert (
        f"Check: the SHA-256 of this line must equal the commitment <code>{COMMITMENT}</code>" in en
    )


def test_private_chat_and_campaigns(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert buttons(view.open_private_keyboard("dice_bot")) == [
            ("💬 Открыть личный чат", "https://t.me/dice_bot?start=st")
        ]
        assert view.no_private_chat_text("<Рита>").startswith(
            "🤫 &lt;Рита&gt;, чтобы бросать втайне"
        )
        assert "/st" in view.choose_campaign_text(False)
        # Sorted by title whatever the case, the chosen one marked.
        assert buttons(
            view.campaigns_keyboard({Campaign(-2): "яблоко", Campaign(-1): "Ария"}, Campaign(-1))
        ) == [
            ("✅ Ария", "hc:-1"),
            ("яблоко", "hc:-2"),
        ]
        assert view.no_hidden_roll_text(None) == "Нераскрытых тайных бросков нет."
        assert view.no_hidden_roll_text(4) == "Тайного броска №4 нет."
        assert view.hidden_npc_note("Гро & м", "Ловкость 3") == (
            "🎭 За персонажа Гро &amp; м: Ловкость 3"
        )
    with speaking(i18n, "en"):
        assert buttons(view.open_private_keyboard("dice_bot"))[0][0] == "💬 Open a private chat"
        assert view.choose_campaign_text(True) == (
            "Choose the campaign your hidden rolls from this chat are for:"
        )
        assert view.campaign_chosen_text("<X>").startswith("Campaign: «&lt;X&gt;».")
        assert view.help_line(profiles.D6) == "/h 4 2 secret roll · /reveal"
        assert view.help_line(MAGE) == "/h 7 6 secret roll · /reveal"
