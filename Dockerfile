# The bot as one small image: python -m bot, as an unprivileged user. The same image runs the
# playground: docker run --rm --network host IMAGE python -m bot playground --no-browser
# Pinned by digest (the multi-platform index of the official image), the tag beside it for
# the reader: a tag moved on the registry cannot change what is built (README "Dependencies").
FROM python:3.11.16-slim-bookworm@sha256:0bee7276f83efd4a1ee05bbbf4281d95ed28e079220a9457f25a93e3f1e3c31b

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PYTHONPATH=/app \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin bot

# The locked dependencies first, in their own layer: editing the code does not reinstall them.
COPY requirements.lock ./
RUN pip install --no-deps --require-hashes -r requirements.lock

# The code runs from /app (PYTHONPATH), where bot/i18n.py finds locales/ beside it; localapi/
# is the playground's Bot API server and page.
COPY rules ./rules
COPY table ./table
COPY bot ./bot
COPY handlers ./handlers
COPY localapi ./localapi
COPY locales ./locales
RUN python -c "from pathlib import Path; from bot.i18n import compile_catalogues; compile_catalogues(Path('locales'))" \
    && chown -R bot:bot /app

USER bot
# Webhook mode listens on WEBHOOK_PORT (8080); METRICS_PORT, when set, serves /livez, /readyz,
# /healthz and /metrics (docker-compose.yml uses 9300). Long polling needs no port, but the
# Mini App sheet (MINIAPP_URL set) listens on MINIAPP_PORT (8081) then; in webhook mode it
# shares 8080.
EXPOSE 8080 8081 9300
CMD ["python", "-m", "bot"]
