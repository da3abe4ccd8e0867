"""Accounts: registration, sign-in with limits on failures, sessions, password change, tokens.

Everything is in the database, so several workers or instances agree on who is signed in
and how many sign-ins failed. Callers pass an open write session; nothing here commits,
with one documented exception: the three functions that hash a password (`register_account`,
`sign_in`, `change_password`) take the Database and run two short transactions around the
hash. An argon2 hash takes tens of milliseconds of CPU; inside a write transaction it would
hold SQLite's one write lock that long, so every other write would queue behind each sign-in.
"""

import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, bindparam, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app import locks
from app.auth import passwords
from app.auth.tokens import digest, new_secret
from app.clock import as_utc
from app.db import Database, connection_of
from app.errors import ConflictError, DomainError, FieldError
from app.models import ApiToken, AuthSession, Invite, LoginAttempt, User
from app.wording import plural

FAILURE_WINDOW = timedelta(minutes=15)
MAX_FAILURES_PER_ACCOUNT = 5
MAX_FAILURES_PER_ADDRESS = 20
MAX_REGISTRATIONS_PER_ADDRESS = 10  # attempts, whatever their outcome, per FAILURE_WINDOW
ATTEMPTS_KEPT = timedelta(days=1)  # older sign-in attempts no longer count: purged hourly
SIGN_IN, REGISTER = "sign-in", "register"
REGISTRATION_CLOSED = "Registration is closed on this server; ask its administrator."
INVITE_INVALID = "this invitation code is not valid (or was already used)"
USERNAME_PATTERN = r"^[a-z0-9][a-z0-9._-]{1,31}$"
API_TOKEN_PREFIX = "rs_"


class AccountError(FieldError):
    """A request refused because of one input, named by `field`; the message is safe to show
    (pages put it beside the form, the token API answers 422 naming the field)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(field, message, code="value_error")


class RegistrationClosed(ConflictError):
    """This server takes no new accounts (RINGSIDE_REGISTRATION=closed)."""

    def __init__(self) -> None:
        super().__init__(REGISTRATION_CLOSED, code="registration_closed")


class TooManyAttempts(DomainError):
    """Past a limit on failed sign-ins or on registrations: the pages answer 429 with
    Retry-After, `retry_after` seconds."""

    status = 429

    def __init__(self, retry_after: int, what: str = "failed sign-ins") -> None:
        message = f"Too many {what}. Try again in {plural(retry_after // 60 + 1, 'minute')}."
        super().__init__(None, message, code="too_many_attempts")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Policy:
    """How this server runs accounts (from Settings)."""

    registration: str  # open, invite or closed
    idle: timedelta  # a session unused this long ends
    absolute: timedelta  # a session ends this long after sign-in, used or not
    key: bytes  # keys the hashes of cookies, tokens and invites


# --- registration and sign-in ----------------------------------------------------------
#
# Argon2 takes a few hundred milliseconds of CPU and runs outside any transaction: on SQLite a
# write transaction holds the database's only write lock, and every grade would queue behind
# the hash. What must not race (counting failures, using an invite, taking a username) is done
# in short transactions before and after it, each under `locks.hold` on PostgreSQL.


def _limit(session: Session, kind: str, by_address: bool, value: str, limit: int,
           now: datetime) -> None:  # fmt: skip
    """Raise TooManyAttempts when `value` has `limit` counted attempts in the window: failed
    sign-ins (a pending one counts as failed), or registrations of any outcome."""
    column = LoginAttempt.address if by_address else LoginAttempt.username
    query = select(LoginAttempt.at).where(
        column == value, LoginAttempt.kind == kind, LoginAttempt.at >= now - FAILURE_WINDOW
    )
    if kind == SIGN_IN:
        query = query.where(LoginAttempt.succeeded.is_(False))
    times = sorted(as_utc(at) for at in session.scalars(query))
    if len(times) >= limit:
        oldest = times[-limit]
        what = "failed sign-ins" if kind == SIGN_IN else "registrations from this address"
        raise TooManyAttempts(max(1, int((oldest + FAILURE_WINDOW - now).total_seconds())), what)


def _check_username(username: str) -> str:
    username = username.strip().lower()
    if not re.match(USERNAME_PATTERN, username):
        raise AccountError(
            "username", "2 to 32 characters: lowercase letters, digits, dots, dashes, underscores"
        )
    return username


def _add_user(session: Session, username: str, password_hash: str, now: datetime) -> User:
    """Insert the user; a username taken meanwhile (a unique violation) is an AccountError."""
    user = User(username=username, display_name=username, password_hash=password_hash,
                created_at=now)  # fmt: skip
    try:
        with session.begin_nested():  # a savepoint: the transaction survives the violation
            session.add(user)
            session.flush()
    except IntegrityError:
        raise AccountError("username", "this username is taken") from None
    return user


def _use_invite(session: Session, code_hash: str, user_id: int, now: datetime) -> None:
    """Mark the invite used, only if it still is unused: of two registrations racing for one
    code, the second waits for the first's row lock and then matches nothing."""
    result = session.execute(
        update(Invite)
        .where(Invite.code_hash == code_hash, Invite.used_at.is_(None))
        .values(used_by=user_id, used_at=now)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise AccountError("invite", INVITE_INVALID)


def register(
    session: Session,
    username: str,
    password: str,
    now: datetime,
    *,
    policy: Policy,
    invite_code: str | None = None,
) -> User:
    """A new account in one transaction; `registration` is "open", "invite" or "closed".

    For the command line. The web hashes outside the transaction: `register_account`.
    """
    username = _check_username(username)
    if policy.registration == "closed":
        raise RegistrationClosed()
    passwords.check_new(password, username)
    user = _add_user(session, username, passwords.hash_password(password), now)
    if policy.registration == "invite":
        _use_invite(session, digest((invite_code or "").strip(), policy.key), user.id, now)
    return user


def register_account(
    database: Database,
    username: str,
    password: str,
    address: str,
    now: datetime,
    *,
    policy: Policy,
    invite_code: str | None = None,
) -> tuple[int, str]:
    """Register from the web: (the new user's id, their session cookie).

    At most MAX_REGISTRATIONS_PER_ADDRESS per address in the window, counted whatever the
    outcome; the password is hashed between two short transactions, never inside one.
    """
    username = _check_username(username)
    if policy.registration == "closed":
        raise RegistrationClosed()
    passwords.check_new(password, username)
    code_hash = digest((invite_code or "").strip(), policy.key)
    with database.write_session() as session:
        locks.hold(session, f"register-address:{address}")
        _limit(session, REGISTER, True, address, MAX_REGISTRATIONS_PER_ADDRESS, now)
        session.add(LoginAttempt(username=username, address=address, at=now, succeeded=False,
                                 kind=REGISTER))  # fmt: skip
    # Fail fast, before the hash, on what will almost surely still hold after it.
    with database.read_session() as session:
        if policy.registration == "invite" and session.scalar(
            select(Invite.id).where(Invite.code_hash == code_hash, Invite.used_at.is_(None))
        ) is None:  # fmt: skip
            raise AccountError("invite", INVITE_INVALID)
        if session.scalar(select(User.id).where(User.username == username)) is not None:
            raise AccountError("username", "this username is taken")
    hashed = passwords.hash_password(password)
    with database.write_session() as session:
        user = _add_user(session, username, hashed, now)
        if policy.registration == "invite":
            _use_invite(session, code_hash, user.id, now)
        cookie, _row = start_session(session, user.id, now, policy)
        return user.id, cookie


def create_invite(session: Session, now: datetime, policy: Policy) -> str:
    code = new_secret()
    session.add(Invite(code_hash=digest(code, policy.key), created_at=now))
    session.flush()
    return code


@dataclass(frozen=True)
class _Claim:
    """A sign-in attempt recorded (as failed) before its password is checked."""

    attempt_id: int
    user_id: int | None
    stored_hash: str | None


# --- trusted devices ---------------------------------------------------------------------
#
# Per-account lockout lets anyone who knows a username lock its owner out. A browser that has
# signed in to the account before carries a device token (a signed cookie), and its attempts
# are counted per device instead: five wrong passwords from elsewhere do not lock it out, and
# its own failures are still limited (OWASP Authentication Cheat Sheet, "device cookies").

DEVICE_PREFIX = "device:"


def device_token(user_id: int, policy: Policy) -> str:
    """A new device token for a browser that just signed in as `user_id`."""
    nonce = secrets.token_urlsafe(16)
    return f"{user_id}.{nonce}.{digest(f'{DEVICE_PREFIX}{user_id}:{nonce}', policy.key)}"


def _trusted_device(token: str | None, user_id: int | None, policy: Policy) -> str | None:
    """The device's tag when `token` was issued to this user by this server, else None."""
    if not token or user_id is None or token.count(".") != 2:
        return None
    owner, nonce, mac = token.split(".")
    expected = digest(f"{DEVICE_PREFIX}{owner}:{nonce}", policy.key)
    if owner != str(user_id) or not hmac.compare_digest(mac, expected):
        return None
    return DEVICE_PREFIX + nonce[:40]


def _claim_attempt(session: Session, username: str, address: str, now: datetime,
                   device: str | None = None, policy: Policy | None = None) -> _Claim:  # fmt: skip
    """Count the failures and record this attempt as one, as a single step per account and
    address: under their locks on PostgreSQL, so parallel attempts see each other's rows and
    no more than the limit are ever evaluated. From a trusted device, the device's own
    failures are what count."""
    locks.hold(session, f"sign-in-user:{username}", f"sign-in-address:{address}")
    found = session.execute(
        select(User.id, User.password_hash).where(
            User.username == username, User.password_hash.is_not(None)
        )
    ).one_or_none()
    tag = _trusted_device(device, found[0] if found else None, policy) if policy else None
    if tag is not None:
        _limit(session, SIGN_IN, True, tag, MAX_FAILURES_PER_ACCOUNT, now)
        address = tag  # recorded against the device: it counts for the account too
    else:
        _limit(session, SIGN_IN, False, username, MAX_FAILURES_PER_ACCOUNT, now)
        _limit(session, SIGN_IN, True, address, MAX_FAILURES_PER_ADDRESS, now)
    attempt = LoginAttempt(username=username, address=address, at=now, succeeded=False,
                           kind=SIGN_IN)  # fmt: skip
    session.add(attempt)
    session.flush()
    return _Claim(attempt.id, found[0] if found else None, found[1] if found else None)


def sign_in(
    database: Database, username: str, password: str, address: str, now: datetime,
    policy: Policy, device: str | None = None,
) -> tuple[int, str] | None:  # fmt: skip
    """(user id, session cookie) if the password matches, else None: the same for an unknown
    user or a wrong password. Raises TooManyAttempts past the limits.

    The attempt is recorded as failed before the password is checked, outside any
    transaction, and marked as a success afterwards if it was one: a failure counts even if
    the process dies in between. `device` is the browser's device token, if it has one
    (device_token): a device that signed in to this account before is limited on its own.
    """
    username = username.strip().lower()[:64]
    with database.write_session() as session:
        claim = _claim_attempt(session, username, address, now, device, policy)
    matches, new_hash = passwords.verify(password, claim.stored_hash)
    if not matches or claim.user_id is None:
        return None
    with database.write_session() as session:
        session.execute(
            update(LoginAttempt).where(LoginAttempt.id == claim.attempt_id).values(succeeded=True)
        )
        if new_hash:  # the hash used outdated parameters: upgrade it now (OWASP), unless the
            # password changed meanwhile
            session.execute(
                update(User)
                .where(User.id == claim.user_id, User.password_hash == claim.stored_hash)
                .values(password_hash=new_hash)
            )
        cookie, _row = start_session(session, claim.user_id, now, policy)
    return claim.user_id, cookie


def change_password(
    database: Database,
    user_id: int,
    current: str,
    new: str,
    keep_session_id: int | None,
    *,
    address: str,
    now: datetime,
    revoke_tokens: bool = True,
) -> None:
    """Change it and end every other session of the user (ASVS 7.4.3) and, unless asked to
    keep them, every API token. The current password is checked as a sign-in is: a failure
    counts toward the account's limit, and past it TooManyAttempts is raised. Both hashes
    are computed outside the write transaction; the change applies only if the password was
    not changed meanwhile."""
    with database.write_session() as session:
        found = session.execute(
            select(User.username, User.password_hash).where(User.id == user_id)
        ).one_or_none()
        if found is None:
            raise AccountError("current_password", "this account no longer exists")
        # A wrong current password is a failed sign-in: it counts toward the account's limit
        # (recorded as failed before the check), so a stolen session cannot guess it freely.
        claim = _claim_attempt(session, found[0], address, now)
    username, stored = found
    matches, _ = passwords.verify(current, stored)
    if not matches:
        raise AccountError("current_password", "that is not your current password")
    passwords.check_new(new, username)
    hashed = passwords.hash_password(new)
    with database.write_session() as session:
        changed = session.execute(
            update(User)
            .where(User.id == user_id, User.password_hash == stored)
            .values(password_hash=hashed)
        )
        if changed.rowcount != 1:  # type: ignore[attr-defined]
            raise AccountError(
                "current_password", "your password was changed meanwhile; sign in again"
            )
        session.execute(
            update(LoginAttempt).where(LoginAttempt.id == claim.attempt_id).values(succeeded=True)
        )
        query = delete(AuthSession).where(AuthSession.user_id == user_id)
        if keep_session_id is not None:
            query = query.where(AuthSession.id != keep_session_id)
        session.execute(query)
        if revoke_tokens:
            session.execute(delete(ApiToken).where(ApiToken.user_id == user_id))


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
    """Delete ended sessions (past their end, or idle too long); returns how many."""
    result = session.execute(
        delete(AuthSession).where(
            (AuthSession.expires_at <= now) | (AuthSession.last_seen_at <= now - policy.idle)
        )
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def purge_attempts(session: Session, now: datetime) -> int:
    """Delete sign-in and registration attempts too old to count towards any limit."""
    result = session.execute(delete(LoginAttempt).where(LoginAttempt.at < now - ATTEMPTS_KEPT))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def purge_expired_tokens(session: Session, now: datetime) -> int:
    result = session.execute(
        delete(ApiToken).where(ApiToken.expires_at.is_not(None), ApiToken.expires_at <= now)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def housekeeping(session: Session, now: datetime, policy: Policy) -> dict[str, int]:
    """The hourly clean-up: ended sessions, expired tokens, attempts past counting."""
    return {
        "sessions": purge_expired(session, now, policy),
        "tokens": purge_expired_tokens(session, now),
        "attempts": purge_attempts(session, now),
    }


# --- API tokens --------------------------------------------------------------------------


MAX_TOKENS = 20
MAX_TOKEN_DAYS = 3650


def create_token(
    session: Session, user_id: int, name: str, now: datetime, policy: Policy,
    expires_in_days: int | None = None,
) -> tuple[str, ApiToken]:  # fmt: skip
    """A new API token, valid for `expires_in_days` (None: until revoked)."""
    name = name.strip()
    if not 1 <= len(name) <= 64:
        raise AccountError("name", "give the token a name of 1 to 64 characters")
    if expires_in_days is not None and not 1 <= expires_in_days <= MAX_TOKEN_DAYS:
        raise AccountError("expires_in_days", f"from 1 to {MAX_TOKEN_DAYS} days, or none")
    locks.take_turn(session, user_id)  # two creations at once must not both see 19
    count = (
        session.scalar(
            select(func.count()).select_from(ApiToken).where(ApiToken.user_id == user_id)
        )
        or 0
    )
    if count >= MAX_TOKENS:
        raise AccountError("name", f"at most {MAX_TOKENS} tokens; revoke one first")
    secret = new_secret(API_TOKEN_PREFIX)
    expires = now + timedelta(days=expires_in_days) if expires_in_days else None
    row = ApiToken(user_id=user_id, name=name, token_hash=digest(secret, policy.key),
                   created_at=now, expires_at=expires)  # fmt: skip
    session.add(row)
    session.flush()
    return secret, row


def find_token(
    session: Session, secret: str, policy: Policy, now: datetime | None = None
) -> ApiToken | None:
    """The token for a secret; None when unknown, revoked or (given `now`) expired."""
    token = session.scalars(
        select(ApiToken).where(ApiToken.token_hash == digest(secret, policy.key))
    ).one_or_none()
    if token is not None and now is not None and token.expires_at is not None:
        if now >= as_utc(token.expires_at):
            return None
    return token


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
