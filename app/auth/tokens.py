"""Random secrets and their hashes: cookies, API tokens and invites are stored only as hashes.

The hash is an HMAC keyed with RINGSIDE_SECRET_KEY, so a copy of the database alone cannot
even be matched against a stolen cookie or token.
"""

import hashlib
import hmac
import secrets


def new_secret(prefix: str = "") -> str:
    """256 bits of randomness, URL-safe (ASVS 7.2.3 asks for at least 128)."""
    return prefix + secrets.token_urlsafe(32)


def digest(secret: str, key: bytes) -> str:
    return hmac.new(key, secret.encode(), hashlib.sha256).hexdigest()
