"""The Mini App: the live table and one's own hand on one screen, served by the bot's process
(docs/architecture.md describes its modules; ``static/`` holds the page)."""
