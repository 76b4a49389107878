"""Names vulture cannot see used (`.ci/run` runs it over the product with the tests as readers).

Each line is a use the code makes by other means: a framework calls it by name, or it is part of
a record that mirrors what Telegram sends. (`.ci/run` also ignores `_api_*`, the server's
handlers of `/bot<token>/<method>`, found by name, and module `__getattr__`s.)
"""

# ruff: noqa
from bot import i18n, polling, settings
from localbotapi import models
from rules import play, seating

i18n._Variables.visit_VariableReference  # fluent.syntax's Visitor dispatches on the node's class name
polling.CountedUpdates.do_process_update  # PTB's BaseUpdateProcessor.process_update calls it
settings.Settings.model_config  # pydantic-settings reads it
settings.Settings._token_shape  # pydantic validators, registered by their decorators
settings.Settings._upper
settings.Settings._lower
settings.Settings._empty_is_none
settings.Settings._webhook_needs_secret
settings.Settings._webapp_url
settings.Settings._short_name
models.Chat.migrated_from  # what Telegram's Chat carries after a migration (read in tests)
models.CallbackAnswer.cache_time  # a field of answerCallbackQuery, recorded as sent
# The engine's triad (verify_x raises, can_x answers, x acts), kept whole for every action.
play.PlayActions.can_stand
play.PlayActions.can_next_round
seating.SeatingActions.can_join
seating.SeatingActions.can_leave
