"""The bot's features, one folder each (ARCHITECTURE.md "Adding a feature").

A feature never imports another; what it adds (router, menu commands, ``/help`` lines,
hand-offs) it declares in its package's ``FEATURE``. This list is the one place that knows
them all, and its order is the routers' order: the hidden rolls' deep link must be seen
before ``/start``'s, and the fallback that answers unknown buttons comes last by itself
(``bot.fallback``, added by the composition root).
"""

from __future__ import annotations

from bot.features import Feature, FeatureSet
from handlers import (
    chronicle,
    combat,
    d6combat,
    d6contest,
    d6project,
    d6requests,
    d6roll,
    extended,
    hidden,
    history,
    inline,
    magick,
    multi,
    notify,
    opposed,
    prob,
    requests,
    roll,
    screen,
    session,
    settings,
    sheet,
    start,
    storyteller,
    teamwork,
    wizard,
)

FEATURES: tuple[Feature, ...] = (
    hidden.FEATURE,
    start.FEATURE,
    settings.FEATURE,
    d6project.FEATURE,  # before d6roll: a d6 /r in reply to a project is the project's
    d6roll.FEATURE,
    roll.FEATURE,
    prob.FEATURE,
    extended.FEATURE,
    d6contest.FEATURE,
    opposed.FEATURE,
    teamwork.FEATURE,
    multi.FEATURE,
    wizard.FEATURE,
    sheet.FEATURE,
    d6combat.FEATURE,
    combat.FEATURE,
    magick.FEATURE,
    d6requests.FEATURE,
    requests.FEATURE,
    storyteller.FEATURE,
    screen.FEATURE,
    history.FEATURE,
    notify.FEATURE,
    session.FEATURE,
    chronicle.FEATURE,
    inline.FEATURE,
)


def all_features() -> FeatureSet:
    return FeatureSet(FEATURES)
