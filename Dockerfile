# The bot as one small image: python -m bot, as an unprivileged user.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin bot

# Dependencies first, so editing the code does not reinstall them.
COPY pyproject.toml README.md ./
COPY rules ./rules
COPY bot ./bot
COPY handlers ./handlers
COPY locales ./locales
RUN pip install . \
    && python -c "from pathlib import Path; from bot.i18n import compile_catalogues; compile_catalogues(Path('locales'))" \
    && chown -R bot:bot /app

USER bot
# Webhook mode listens here (WEBHOOK_PORT); long polling needs no port.
EXPOSE 8080
CMD ["python", "-m", "bot"]
