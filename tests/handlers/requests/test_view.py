"""A roll request drawn without a bot: the pool asked for, each player's line (a roll, an
automatic failure, one who cannot act), open, answered and closed."""

from __future__ import annotations

from aiogram.utils.i18n import I18n

from handlers.requests import view
from handlers.requests.flow import RequestAnswer, RequestState
from handlers.requests.tap import codes_of
from rules import d10, profiles
from rules.actions import PoolStatus
from rules.health import ImpossibleReason
from rules.sheet import SheetSystem
from tests.handlers.views import buttons, speaking

MAGE = profiles.HOUSE_MAGE
ASKED = RequestState(
    system=SheetSystem.MAGE, codes=("perception", "alertness"), difficulty=8, asker="Рита"
)
ANSWERS = (
    RequestAnswer(
        user_id=2,
        name="Борис",
        status=PoolStatus.ROLL,
        base=5,
        penalty=1,
        dice=4,
        result=d10.resolve([9, 8, 3, 1], 6, MAGE),
    ),
    RequestAnswer(user_id=3, name="Вера", status=PoolStatus.AUTO_FAILURE, base=0),
    RequestAnswer(
        user_id=4,
        name="<Гена>",
        status=PoolStatus.IMPOSSIBLE,
        base=3,
        reason=ImpossibleReason.INCAPACITATED,
    ),
)


def draw(i18n: I18n, locale: str, state: RequestState, *, closed: bool = False) -> list[str]:
    with speaking(i18n, locale):
        return view.request_text(state, state.codes, locale, MAGE, closed).splitlines()


def test_a_fresh_request_invites_the_table(i18n: I18n) -> None:
    assert draw(i18n, "ru", ASKED) == [
        "📣 <b>Рита</b> просит бросить: <b>Восприятие + Бдительность</b>, сложность 8 (сложно)",
        "Нажмите кнопку, чтобы бросить по своему листу персонажа.",
    ]
    assert draw(i18n, "en", ASKED) == [
        "📣 <b>Рита</b> asks for a roll: <b>Perception + Alertness</b>, difficulty 8 (difficult)",
        "Tap the button to roll from your character sheet.",
    ]


def test_each_answer_is_a_line(i18n: I18n) -> None:
    answered = ASKED.model_copy(update={"answers": ANSWERS})
    assert draw(i18n, "ru", answered)[1:] == [
        "• Борис: 4к10 (−1 за раны): <b>9</b> <b>8</b> 3 <s>1</s> — <b>Успех</b>: 1 успех",
        "• Вера: <b>Неудача</b> — 0 в Способности",
        "• &lt;Гена&gt;: без сознания, действовать не может",
    ]
    closed = draw(i18n, "en", answered, closed=True)
    assert closed[1:] == [
        "• Борис: 4d10 (−1 for wounds): <b>9</b> <b>8</b> 3 <s>1</s> — <b>Success</b>: 1 success",
        "• Вера: <b>Failure</b> — 0 in the Ability",
        "• &lt;Гена&gt;: incapacitated, cannot act",
        "The request is closed.",
    ]


def test_buttons_roll_from_the_sheet_and_close(i18n: I18n) -> None:
    with speaking(i18n, "ru"):
        assert buttons(view.request_keyboard("F2")) == [
            ("🎲 Бросить по листу", "rq:F2:go"),
            ("✖ Закрыть", "rq:F2:end"),
        ]
    with speaking(i18n, "en"):
        assert buttons(view.request_keyboard("F2")) == [
            ("🎲 Roll from my sheet", "rq:F2:go"),
            ("✖ Close", "rq:F2:end"),
        ]
        assert (
            view.too_many_traits_text(2)
            == "A pool is at most 2 traits, joined by +: /ask perc+alert 8"
        )


def test_a_roll_asked_of_one_player_names_them_in_both_languages(i18n: I18n) -> None:
    only = ASKED.model_copy(update={"only": 2, "only_name": "<Борис>"})
    with speaking(i18n, "ru"):
        text = view.request_text(only, codes_of(only), "ru", MAGE, closed=False)
        labels = [label for label, _data in buttons(view.request_keyboard("f1", one=True))]
    assert text.startswith(
        '📣 <a href="tg://user?id=2">&lt;Борис&gt;</a>, <b>Рита</b> просит бросить: '
        "<b>Восприятие + Бдительность</b>, сложность 8"
    )
    assert labels == ["🎲 Бросить", "✖ Закрыть"]
    answered = only.model_copy(update={"answers": ANSWERS[:1]})
    with speaking(i18n, "en"):
        done = view.request_text(answered, codes_of(answered), "en", MAGE, closed=True)
    assert "asks <a href" in done
    assert "• Борис: 4d10" in done
    assert "closed" not in done  # its one answer closed it, nothing to say
