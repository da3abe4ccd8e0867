"""Accounts: registration, sign-in with limits on failures, sessions, password change, tokens.

Everything is in the database, so several workers or instances agree on who is signed in
and how many sign-ins failed. Callers pass an open write session; nothing here commits.
"""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, bindparam, delete, func, select, update
from sqlalchemy.orm import Session

from app.auth import passwords
from app.auth.tokens import digest, new_secret
from app.db import connection_of
from app.models import ApiToken, AuthSession, Invite, LoginAttempt, User
from app.srs.days import as_utc

FAILURE_WINDOW = timedelta(minutes=15)
MAX_FAILURES_PER_ACCOUNT = 5
MAX_FAILURES_PER_ADDRESS = 20
USERNAME_PATTERN = r"^[a-z0-9][a-z0-9._-]{1,31}$"
API_TOKEN_PREFIX = "rs_"


class AccountError(ValueError):
    """A request that cannot be granted; the message is safe to show."""


class TooManyAttempts(AccountError):
    def __init__(self, retry_after: int) -> None:
        super().__init__(f"Too many failed sign-ins. Try again in {retry_after // 60 + 1} minutes.")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Policy:
    """How this server runs accounts (from Settings)."""

    registration: str  # open, invite or closed
    idle: timedelta  # a session unused this long ends
    absolute: timedelta  # a session ends this long after sign-in, used or not
    key: bytes  # keys the hashes of cookies, tokens and invites


# --- registration and sign-in ----------------------------------------------------------


def register(
    session: Session,
    username: str,
    password: str,
    now: datetime,
    *,
    policy: Policy,
    invite_code: str | None = None,
) -> User:
    """A new account; `registration` is "open", "invite" or "closed"."""
    username = username.strip().lower()
    if not re.match(USERNAME_PATTERN, username):
        raise AccountError(
            "username: 2 to 32 characters: lowercase letters, digits, dots, dashes, underscores"
        )
    if policy.registration == "closed":
        raise AccountError("Registration is closed on this server; ask its administrator.")
    invite = None
    if policy.registration == "invite":
        code_hash = digest((invite_code or "").strip(), policy.key)
        invite = session.scalars(
            select(Invite).where(Invite.code_hash == code_hash, Invite.used_at.is_(None))
        ).one_or_none()
        if invite is None:
            raise AccountError("invite: this invitation code is not valid (or was already used)")
    passwords.check_new(password, username)
    if session.scalars(select(User.id).where(User.username == username)).first() is not None:
        raise AccountError("username: this username is taken")
    user = User(
        username=username,
        display_name=username,
        password_hash=passwords.hash_password(password),
        created_at=now,
    )
    session.add(user)
    session.flush()
    if invite is not None:
        invite.used_by, invite.used_at = user.id, now
    return user


def create_invite(session: Session, now: datetime, policy: Policy) -> str:
    code = new_secret()
    session.add(Invite(code_hash=digest(code, policy.key), created_at=now))
    session.flush()
    return code


def _failures(session: Session, by_address: bool, value: str, since: datetime) -> list[datetime]:
    column = LoginAttempt.address if by_address else LoginAttempt.username
    rows = session.scalars(
        select(LoginAttempt.at).where(
            column == value, LoginAttempt.at >= since, LoginAttempt.succeeded.is_(False)
        )
    )
    return [as_utc(at) for at in rows]


def authenticate(
    session: Session, username: str, password: str, address: str, now: datetime
) -> User | None:
    """The user if the password matches, else None: the same for an unknown user or a wrong
    password. The attempt is recorded either way; the caller commits so failures count.
    """
    username = username.strip().lower()[:64]
    since = now - FAILURE_WINDOW
    for by_address, value, limit in (
        (False, username, MAX_FAILURES_PER_ACCOUNT),
        (True, address, MAX_FAILURES_PER_ADDRESS),
    ):
        failures = _failures(session, by_address, value, since)
        if len(failures) >= limit:
            oldest = sorted(failures)[-limit]
            raise TooManyAttempts(max(1, int((oldest + FAILURE_WINDOW - now).total_seconds())))
    user = session.scalars(
        select(User).where(User.username == username, User.password_hash.is_not(None))
    ).one_or_none()
    matches, new_hash = passwords.verify(password, user.password_hash if user else None)
    session.add(LoginAttempt(username=username, address=address, at=now, succeeded=matches))
    if not matches or user is None:
        return None
    if new_hash:  # the hash used outdated parameters: upgrade it now (OWASP)
        user.password_hash = new_hash
    return user


def change_password(
    session: Session, user: User, current: str, new: str, keep_session_id: int | None
) -> None:
    """Change it and end every other session of the user (ASVS 7.4.3)."""
    matches, _ = passwords.verify(current, user.password_hash)
    if not matches:
        raise AccountError("current_password: that is not your current password")
    passwords.check_new(new, user.username)
    user.password_hash = passwords.hash_password(new)
    query = delete(AuthSession).where(AuthSession.user_id == user.id)
    if keep_session_id is not None:
        query = query.where(AuthSession.id != keep_session_id)
    session.execute(query)


# --- sessions --------------------------------------------------------------------------


def start_session(
    session: Session, user_id: int, now: datetime, policy: Policy
) -> tuple[str, AuthSession]:
    """A new session (a new id at every sign-in): the cookie value and its row."""
    cookie = new_secret()
    row = AuthSession(
        user_id=user_id,
        token_hash=digest(cookie, policy.key),
        csrf_token=new_secret(),
        created_at=now,
        last_seen_at=now,
        expires_at=now + policy.absolute,
    )
    session.add(row)
    session.flush()
    return cookie, row


@dataclass(frozen=True)
class LiveSession:
    """What a request needs of its session row: who, its CSRF token, when last seen."""

    id: int
    user_id: int
    csrf_token: str
    last_seen_at: datetime


# The columns alone, not the entity: every request with a cookie asks, and an ORM load of the
# row costs twice the query (bench/suite.py).
_SESSION_BY_HASH = select(
    AuthSession.id,
    AuthSession.user_id,
    AuthSession.csrf_token,
    AuthSession.last_seen_at,
    AuthSession.expires_at,
).where(AuthSession.token_hash == bindparam("token_hash"))


def find_session(
    db: Session | Connection, cookie: str, now: datetime, policy: Policy
) -> LiveSession | None:
    """The live session for a cookie; None when unknown, idle too long, or past its end."""
    query = {"token_hash": digest(cookie, policy.key)}
    row = connection_of(db).execute(_SESSION_BY_HASH, query).one_or_none()
    if row is None:
        return None
    session_id, user_id, csrf, last_seen, expires = row
    if now >= as_utc(expires) or now >= as_utc(last_seen) + policy.idle:
        return None
    return LiveSession(session_id, user_id, csrf, as_utc(last_seen))


def touch(session: Session, session_id: int, now: datetime) -> None:
    session.execute(
        update(AuthSession).where(AuthSession.id == session_id).values(last_seen_at=now)
    )


def end_session(session: Session, cookie: str, policy: Policy) -> None:
    session.execute(delete(AuthSession).where(AuthSession.token_hash == digest(cookie, policy.key)))


def purge_expired(session: Session, now: datetime, policy: Policy) -> int:
    result = session.execute(
        delete(AuthSession).where(
            (AuthSession.expires_at <= now) | (AuthSession.last_seen_at <= now - policy.idle)
        )
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


# --- API tokens --------------------------------------------------------------------------


def create_token(
    session: Session, user_id: int, name: str, now: datetime, policy: Policy
) -> tuple[str, ApiToken]:
    name = name.strip()
    if not 1 <= len(name) <= 64:
        raise AccountError("name: give the token a name of 1 to 64 characters")
    count = (
        session.scalar(
            select(func.count()).select_from(ApiToken).where(ApiToken.user_id == user_id)
        )
        or 0
    )
    if count >= 20:
        raise AccountError("name: at most 20 tokens; revoke one first")
    secret = new_secret(API_TOKEN_PREFIX)
    row = ApiToken(
        user_id=user_id, name=name, token_hash=digest(secret, policy.key), created_at=now
    )
    session.add(row)
    session.flush()
    return secret, row


def find_token(session: Session, secret: str, policy: Policy) -> ApiToken | None:
    return session.scalars(
        select(ApiToken).where(ApiToken.token_hash == digest(secret, policy.key))
    ).one_or_none()


def touch_token(session: Session, token_id: int, now: datetime) -> None:
    session.execute(update(ApiToken).where(ApiToken.id == token_id).values(last_used_at=now))


def revoke_token(session: Session, user_id: int, token_id: int) -> bool:
    result = session.execute(
        delete(ApiToken).where(ApiToken.id == token_id, ApiToken.user_id == user_id)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def tokens_of(session: Session, user_id: int) -> list[ApiToken]:
    return list(
        session.scalars(
            select(ApiToken).where(ApiToken.user_id == user_id).order_by(ApiToken.created_at)
        )
    )
