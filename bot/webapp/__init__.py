"""The Mini App: the live table and one's own hand on one screen, served by the bot's process.

:mod:`~bot.webapp.init_data` proves who is asking (Telegram's signed ``initData``),
:mod:`~bot.webapp.view` is what one person may see of a game (pure, like :mod:`bot.render`),
:mod:`~bot.webapp.server` the web server (the page, the state, the live stream, the actions) and
:mod:`~bot.webapp.links` the ways into it from the chats. ``static/`` holds the page.
"""
