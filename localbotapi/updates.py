"""How updates reach a bot: getUpdates (long polling, offsets, the 409 conflicts) and webhooks
(setWebhook, its delivery loop with retries, getWebhookInfo), both filtered by allowed_updates.
The queue itself is `FakeBot.pending`, filled by `World.push_update`."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time

from aiohttp import ClientError, ClientSession, ClientTimeout

from .models import JSON, FakeBot, Webhook, WebhookAttempt
from .wire import ApiError, Params, bad_request, dumps
from .world import World

NOT_BY_DEFAULT = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
"""Update types a bot gets only by naming them in allowed_updates."""


class Updates(World):
    """The update methods of `BotApiServer`."""

    async def _api_getUpdates(self, bot: FakeBot, params: Params) -> list[JSON]:
        if bot.webhook is not None:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = params.integer("offset")
        limit = params.integer("limit") or 100
        limit = max(1, min(limit, 100))
        timeout = max(0.0, params.number("timeout") or 0.0)
        allowed = params.obj("allowed_updates", "allowed updates")
        if allowed is not None:
            bot.allowed_updates = [str(kind) for kind in allowed] if allowed else None
        if offset is not None:
            if offset < 0:
                bot.pending = bot.pending[offset:]
            else:
                bot.pending = [u for u in bot.pending if u["update_id"] >= offset]
        bot.poll_generation += 1
        generation = bot.poll_generation
        bot._notify()  # an older long poll of this bot ends with 409, as on Telegram
        deadline = time.monotonic() + timeout
        while True:
            event = bot._event
            bot.pending = [u for u in bot.pending if _wanted(bot, u)]
            if bot.pending or self._closing:
                return [dict(update) for update in bot.pending[:limit]]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)
            if bot.poll_generation != generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; "
                    "make sure that only one bot instance is running",
                )
            if bot.webhook is not None:
                return []

    async def _api_setWebhook(self, bot: FakeBot, params: Params) -> bool:
        url = params.string("url") or ""
        if params.flag("drop_pending_updates"):
            bot.pending.clear()
        if not url:
            await self._stop_webhook(bot)
            return True
        if not re.match(r"^https?://[^\s/]+", url):
            raise bad_request("bad webhook: Failed to resolve host: Name or service not known")
        secret = params.string("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
            raise bad_request("secret token contains unallowed characters")
        allowed = params.obj("allowed_updates", "allowed updates")
        if allowed is not None:
            bot.allowed_updates = [str(kind) for kind in allowed] if allowed else None
        await self._stop_webhook(bot)
        bot.webhook = Webhook(
            url=url,
            secret_token=secret,
            max_connections=params.integer("max_connections") or 40,
            allowed_updates=bot.allowed_updates,
        )
        bot.poll_generation += 1
        bot._notify()
        self._webhook_tasks[bot.token] = asyncio.create_task(self._webhook_loop(bot))
        return True

    async def _api_deleteWebhook(self, bot: FakeBot, params: Params) -> bool:
        if params.flag("drop_pending_updates"):
            bot.pending.clear()
        await self._stop_webhook(bot)
        return True

    async def _api_getWebhookInfo(self, bot: FakeBot, params: Params) -> JSON:
        info: JSON = {
            "url": "",
            "has_custom_certificate": False,
            "pending_update_count": len(bot.pending),
        }
        hook = bot.webhook
        if hook is not None:
            info.update(url=hook.url, max_connections=hook.max_connections, ip_address="127.0.0.1")
            if hook.allowed_updates:
                info["allowed_updates"] = hook.allowed_updates
            if hook.last_error_date is not None:
                info["last_error_date"] = hook.last_error_date
                info["last_error_message"] = hook.last_error_message
        return info

    async def _stop_webhook(self, bot: FakeBot) -> None:
        bot.webhook = None
        task = self._webhook_tasks.pop(bot.token, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _webhook_loop(self, bot: FakeBot) -> None:
        """Deliver pending updates one by one; a failure is retried with growing delays."""
        if self._session is None:
            self._session = ClientSession(timeout=ClientTimeout(total=10))
        session = self._session
        delay = self.webhook_retry_delay
        while bot.webhook is not None and not self._closing:
            hook = bot.webhook
            event = bot._event
            bot.pending = [u for u in bot.pending if _wanted(bot, u)]
            if not bot.pending:
                await event.wait()
                continue
            update = bot.pending[0]
            headers = {"Content-Type": "application/json"}
            if hook.secret_token:
                headers["X-Telegram-Bot-Api-Secret-Token"] = hook.secret_token
            error: str | None = None
            try:
                async with session.post(hook.url, data=dumps(update), headers=headers) as reply:
                    await reply.read()
                    if not 200 <= reply.status < 300:
                        error = f"Wrong response from the webhook: {reply.status} {reply.reason}"
            except (ClientError, TimeoutError, OSError) as exc:
                error = f"Connection failed: {exc.__class__.__name__}"
            bot.webhook_attempts.append(WebhookAttempt(time.monotonic(), update, error))
            if error is None:
                if bot.pending and bot.pending[0] is update:
                    bot.pending.pop(0)
                hook.delivered += 1
                delay = self.webhook_retry_delay
                self._touch()
            else:
                hook.last_error_date = int(time.time())
                hook.last_error_message = error
                self._touch()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)


def _update_type(update: JSON) -> str:
    return next((key for key in update if key != "update_id"), "")


def _wanted(bot: FakeBot, update: JSON) -> bool:
    """Whether the bot's allowed_updates let this update through: the types it listed, or
    (none listed, or an empty list) every type but chat_member and the reaction updates."""
    kind = _update_type(update)
    if bot.allowed_updates:
        return kind in bot.allowed_updates
    return kind not in NOT_BY_DEFAULT
