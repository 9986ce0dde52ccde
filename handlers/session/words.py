"""The words ``/session`` takes, in both languages and their everyday spellings."""

from __future__ import annotations

START = frozenset({"start", "begin", "open", "начать", "начало", "старт", "открыть", "начинаем"})
END = frozenset(
    {"end", "stop", "finish", "close", "закончить", "конец", "завершить", "стоп", "закрыть"}
)
