"""The Mini App: the live table and one's own hand on one screen, served by the bot's process
(its modules are described in docs/architecture.md). ``static/`` holds the page.
"""
