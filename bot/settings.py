"""Settings of the running bot, read from the environment and a ``.env`` file (docs/product.md §4).

Every setting is checked at start-up, before the chat library is even imported, so that a
typo stops the process within a second with one clear line instead of a traceback minutes
later, when the first player rolls. This module imports nothing of the bot's own (only the
Cluster's URL schemes, table/redis_urls.py, which import nothing). The token is a
``SecretStr`` so that it never lands in a log line or a ``repr``.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from table.redis_urls import CLUSTER_SCHEMES

TOKEN_SHAPE = re.compile(r"^\d+:[A-Za-z0-9_-]+$")
# Telegram's own rule for setWebhook's secret_token: 1-256 characters of A-Z a-z 0-9 _ -.
WEBHOOK_SECRET_SHAPE = re.compile(r"^[A-Za-z0-9_-]{1,256}$")
DEFAULT_WEBHOOK_PATH = "/webhook"

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
LogFormat = Literal["text", "json"]

# Exit codes of a start-up that cannot go on (README "Exit codes", bot/__main__.py).
EXIT_BAD_SETTINGS = 2  # a setting is missing or wrong, or Telegram or Redis refused it
EXIT_UNREACHABLE = 3  # the Bot API server did not answer at start-up, retries included


class Settings(BaseSettings):
    """The whole configuration; field ``x`` is read from the variable ``X``."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,  # a blank line copied from .env.example means "not set"
        extra="ignore",
        frozen=True,
    )

    bot_token: SecretStr | None = None
    redis_url: str | None = None
    telegram_api_url: str = "https://api.telegram.org"
    default_locale: Literal["ru", "en"] = "ru"
    log_level: LogLevel = "INFO"
    log_format: LogFormat = "text"  # json: one JSON object per line (bot/logs.py)
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    webhook_host: str = "0.0.0.0"  # listen on every interface: the container sits behind a proxy
    webhook_port: int = Field(default=8080, ge=1, le=65535)
    webhook_path: str | None = None
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    # The loopback interface: the numbers and probes are for this host only unless the
    # operator says otherwise (docker-compose.yml does, for its published port).
    metrics_host: str = "127.0.0.1"
    # Seconds an update whose result Telegram keeps refusing (5xx, no answer) is tried before
    # it is dropped, what it spent given back, and its player told (bot/delivery.py).
    give_up_after: float = Field(default=900.0, ge=1.0)
    # How often the Redis server writes its AOF to disk, as the deployment promises it
    # (README "Durability"): set in the server's own configuration (docker-compose.yml passes
    # it on); the bot checks at start that the server does so, and warns if not.
    redis_appendfsync: Literal["always", "everysec"] | None = None
    # The Mini App sheet (bot/miniapp/): its public HTTPS address (the operator's proxy in
    # front of this process), the short name given to @BotFather's /newapp (for the direct
    # link a group's /sheet offers), and where it listens in polling mode (in webhook mode it
    # shares the webhook's server).
    miniapp_url: str | None = None
    miniapp_name: str | None = None
    miniapp_host: str = "0.0.0.0"
    miniapp_port: int = Field(default=8081, ge=1, le=65535)

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not TOKEN_SHAPE.match(value.get_secret_value().strip()):
            raise ValueError("must look like 123456789:AAE... (the token @BotFather gave you)")
        return SecretStr(value.get_secret_value().strip()) if value is not None else None

    @field_validator("redis_url")
    @classmethod
    def _redis_scheme(cls, value: str | None) -> str | None:
        """One Redis (``redis://``, ``rediss://`` with TLS, ``unix://``), or a Redis Cluster
        named by any one of its nodes: ``redis+cluster://host:port`` (``rediss+cluster://``
        with TLS), whose keys the store keeps in one slot per chat (table/store/__init__.py)."""
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme in CLUSTER_SCHEMES:
            if not parts.hostname or parts.path.strip("/") not in ("", "0"):
                raise ValueError("a cluster URL names one node, redis+cluster://host:port")
            return value
        if parts.scheme not in {"redis", "rediss", "unix"}:
            raise ValueError(
                "must start with redis://, rediss://, unix:// or redis+cluster:// (a cluster)"
            )
        return value

    @field_validator("telegram_api_url", "webhook_url", "miniapp_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise ValueError("must be an http:// or https:// URL")
        return value.rstrip("/")

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower_format(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("default_locale", mode="before")
    @classmethod
    def _lower_locale(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not WEBHOOK_SECRET_SHAPE.match(value.get_secret_value()):
            raise ValueError("must be 1-256 characters of A-Z, a-z, 0-9, _ and -")
        return value

    @field_validator("webhook_path")
    @classmethod
    def _path_shape(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("/"):
            raise ValueError("must start with /")
        return value

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> Settings:
        # Without the secret anyone who guesses the URL can feed the bot forged updates.
        if self.webhook_url is not None and self.webhook_secret is None:
            raise ValueError("WEBHOOK_SECRET is required when WEBHOOK_URL is set")
        return self

    @property
    def miniapp_path(self) -> str:
        """Where the Mini App is served: the path of MINIAPP_URL, ending in ``/``."""
        path = urlsplit(self.miniapp_url or "").path.rstrip("/")
        return path + "/"

    @property
    def listen_path(self) -> str:
        """Where the webhook server listens: WEBHOOK_PATH, else the path of WEBHOOK_URL."""
        if self.webhook_path is not None:
            return self.webhook_path
        url_path = urlsplit(self.webhook_url or "").path
        return url_path or DEFAULT_WEBHOOK_PATH


def describe_error(error: ValidationError) -> str:
    """One line naming every bad variable, for stderr at start-up (no traceback)."""
    problems = []
    for item in error.errors():
        name = str(item["loc"][0]).upper() if item["loc"] else "settings"
        message = str(item["msg"]).removeprefix("Value error, ")
        problems.append(message if name == "settings" else f"{name}: {message}")
    return "invalid settings: " + "; ".join(problems)
