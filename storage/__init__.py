"""Persistence of chats, players, games, the ledger and statistics."""
