"""Settings from the environment and `.env` (pydantic-settings). Built once in `main()`, never at
import time."""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

TOKEN_PATTERN = re.compile(r"^\d{1,20}:[A-Za-z0-9_-]{20,100}$", re.ASCII)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    bot_token: SecretStr
    bot_api_base_url: str = "https://api.telegram.org/bot"
    database_url: str = "sqlite:///ochko.sqlite3"
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    turn_timeout: int = Field(60, ge=10, le=3600)
    lobby_timeout: int = Field(900, ge=60, le=86400)  # an idle lobby or game expires after this
    starting_balance: int = Field(1000, ge=1, le=10**9)
    max_games_per_user: int = Field(3, ge=1, le=100)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    log_format: Literal["text", "json"] = "text"  # json: one object per line (bot/logs.py)
    default_language: Literal["ru", "en"] = "ru"
    # A floor under the gap between two edits of a group's live table (seconds). None by
    # default: the group's budget paces them (bot.lanes), at once while its minute has room.
    table_edit_gap: float = Field(0.0, ge=0.0, le=60.0)
    webhook_url: str | None = None
    webhook_secret: SecretStr | None = None
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = Field(8443, ge=1, le=65535)
    # The Mini App (bot/webapp/): the public address of its page (https; plain http only on
    # this machine's loopback, for tests and the sandbox) and its BotFather short name. With
    # no address the bot offers no Mini App; without a short name, none in the groups.
    webapp_url: str | None = None
    webapp_short_name: str | None = None
    webapp_listen: str = "127.0.0.1"
    webapp_port: int = Field(8081, ge=1, le=65535)
    webapp_auth_max_age: int = Field(86_400, ge=60, le=7 * 86_400)  # seconds an initData holds
    webapp_telegram_js: str = "https://telegram.org/js/telegram-web-app.js"
    # /metrics (bot/metrics.py). /healthz and /readyz are served wherever the bot's web server
    # runs: the Mini App's site when it is on, else a small server of their own on
    # METRICS_LISTEN:METRICS_PORT, which runs when the metrics are on.
    metrics_enabled: bool = False
    metrics_listen: str = "127.0.0.1"
    metrics_port: int = Field(9102, ge=1, le=65535)

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        if not TOKEN_PATTERN.match(value.get_secret_value()):
            raise ValueError("does not look like a bot token (123456:ABC-…) from @BotFather")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("log_format", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("webhook_url", "webapp_url", "webapp_short_name", mode="before")
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @field_validator("webapp_url")
    @classmethod
    def _webapp_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parts = urlsplit(value)
        loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
        if parts.scheme != "https" and not (parts.scheme == "http" and loopback):
            raise ValueError("must be an https:// address (Telegram opens Mini Apps over HTTPS)")
        if not parts.hostname or parts.query or parts.fragment:
            raise ValueError("must be the page's address, without a query (https://host/app/)")
        return value if value.endswith("/") else value + "/"

    @field_validator("webapp_short_name")
    @classmethod
    def _short_name(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", value):
            raise ValueError("is the Mini App's short name from @BotFather (3–30 of A-Z a-z 0-9 _)")
        return value

    @model_validator(mode="after")
    def _webhook_needs_secret(self) -> Settings:
        if self.webhook_url:
            secret = self.webhook_secret.get_secret_value() if self.webhook_secret else ""
            if not re.fullmatch(r"[A-Za-z0-9_-]{16,256}", secret):
                raise ValueError(
                    "WEBHOOK_SECRET (16–256 of A-Z a-z 0-9 _ -) is required when WEBHOOK_URL is set"
                )
        return self


def describe_error(error: ValidationError) -> str:
    """One line per invalid setting, without echoing secret values."""
    lines = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"]) or "settings"
        message = item["msg"]
        if item["type"] == "missing":
            message = "is required (set it in the environment or in .env)"
        lines.append(f"{field.upper()}: {message.removeprefix('Value error, ')}")
    return "; ".join(lines)
