"""The Telegram layer of the Ochko bot.

Kept free of third-party imports so that `python -m bot` can set up its own environment first.
"""
