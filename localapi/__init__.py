"""A local Telegram Bot API server and the helpers that run real processes against it.

Telegram is unreachable from the machines the bot is tested on, so the end-to-end tests and
the benchmarks (``bench/``) run the real bot process against :class:`localapi.server.FakeBotApi`
on 127.0.0.1, which validates every call against the vendored Bot API schema
(``telegram-bot-api/api.json``, MIT, licence beside it). :mod:`localapi.processes` starts
Debian's ``redis-server`` on a free port in a temp dir and ``python -m bot`` against the
server. Neither ``tests/`` nor ``bench/`` owns this package; both import it.
"""
