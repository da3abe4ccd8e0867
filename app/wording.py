"""Counts as people write them: "1 unseen card", "2 unseen cards", "1,024 tokens"."""


def plural(count: int, one: str, many: str | None = None) -> str:
    """`count` and the noun that agrees with it; `many` when adding "s" is wrong ("1 day left")."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"
