"""The local profile that local mode runs as."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import User

LOCAL_USERNAME = "local"


def ensure_local_user(session: Session) -> User:
    """Return the local user, creating it on first start."""
    user = session.scalars(select(User).where(User.username == LOCAL_USERNAME)).one_or_none()
    if user is None:
        user = User(username=LOCAL_USERNAME, display_name="Local profile")
        session.add(user)
        session.flush()
    return user
