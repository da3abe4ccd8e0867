"""Data safety: export and import of a user's data, Anki decks, backups, the start-up check."""
