"""The Mini App: the live table and one's own hand on one screen, served by the bot's process.

:mod:`~bot.webapp.init_data` proves who is asking (Telegram's signed ``initData``),
:mod:`~bot.webapp.view` is what one person may see of a game (pure, like :mod:`bot.render`),
:mod:`~bot.webapp.server` the web server (the page, the state, the actions),
:mod:`~bot.webapp.asking` who asks and what a request says, :mod:`~bot.webapp.live` the
committed versions and the live stream of each open page, and
:mod:`~bot.webapp.links` the ways into it from the chats. ``static/`` holds the page.
"""
