"""Passwords: argon2id through pwdlib, OWASP's length rules, and a list of common ones refused.

No composition rules (ASVS 6.2.5): length and "not a well-known password" do the work.
"""

import gzip
from functools import lru_cache
from pathlib import Path

from pwdlib import PasswordHash

from app.errors import FieldError

MIN_LENGTH = 8
MAX_LENGTH = 256  # long passphrases welcome; a cap keeps hashing cost bounded
_COMMON = Path(__file__).parent / "data" / "common-passwords.txt.gz"


class PasswordRejected(FieldError):
    """A new password refused: too short, too long, the username, or a common one."""

    def __init__(self, message: str) -> None:
        super().__init__("password", message, code="value_error")


@lru_cache(maxsize=1)
def hasher() -> PasswordHash:
    """argon2id with argon2-cffi's defaults (m=64 MiB, t=3, p=4): above OWASP's minimum."""
    return PasswordHash.recommended()


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return hasher().hash("ringside-no-such-user")


@lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    with gzip.open(_COMMON, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip())


def check_new(password: str, username: str) -> None:
    """Refuse a password that is too short, too long, the username, or a common one."""
    if len(password) < MIN_LENGTH:
        raise PasswordRejected(f"use at least {MIN_LENGTH} characters")
    if len(password) > MAX_LENGTH:
        raise PasswordRejected(f"use at most {MAX_LENGTH} characters")
    if not password.strip():
        raise PasswordRejected("a password of only spaces is too easy to guess; choose another")
    lowered = password.lower().strip()
    if lowered == username.lower() or lowered in common_passwords():
        raise PasswordRejected("this password is too common; choose another")


def hash_password(password: str) -> str:
    return hasher().hash(password)


def verify(password: str, stored: str | None) -> tuple[bool, str | None]:
    """(matches, a new hash when the stored one uses outdated parameters).

    An unknown user (stored None) is checked against a dummy hash, so both failures take
    the same time and look the same.
    """
    if stored is None:
        hasher().verify(password, _dummy_hash())
        return False, None
    return hasher().verify_and_update(password, stored)
