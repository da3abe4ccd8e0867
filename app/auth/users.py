"""The local profile that local mode runs as."""

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.models import User

LOCAL_USERNAME = "local"


def ensure_local_user(session: Session) -> User:
    """Return the local user, creating it on first start (two processes starting at once on
    PostgreSQL may both try: the second finds the first's)."""
    query = select(User).where(User.username == LOCAL_USERNAME)
    user = session.scalars(query).one_or_none()
    if user is None:
        try:
            with session.begin_nested():
                user = User(username=LOCAL_USERNAME, display_name="Local profile")
                session.add(user)
        except IntegrityError:
            user = session.scalars(query).one()
    return user
