"""The weekly refit: FSRS's parameters fitted again once a week has brought new reviews."""

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

import anyio
from sqlalchemy import and_, func, or_, select

from app.db import Database
from app.models import ReviewLog, ReviewSettings
from app.srs import optimizer

logger = logging.getLogger("ringside")
CHECK_EVERY_S = 3600.0
REFIT_AFTER = timedelta(days=7)


def due_users(database: Database, now: datetime) -> list[int]:
    """Users with enough reviews whose parameters are a week old (or never fitted) and who
    have reviewed since."""
    week_ago = now - REFIT_AFTER
    reviews = (
        select(
            ReviewLog.user_id,
            func.count().label("total"),
            func.max(ReviewLog.reviewed_at).label("latest"),
        )
        .group_by(ReviewLog.user_id)
        .subquery()
    )
    fitted = ReviewSettings.parameters_fitted_at
    with database.read_session() as session:
        rows = session.execute(
            select(reviews.c.user_id)
            .outerjoin(ReviewSettings, ReviewSettings.user_id == reviews.c.user_id)
            .where(reviews.c.total >= optimizer.MIN_REVIEWS)
            .where(or_(fitted.is_(None), and_(fitted < week_ago, reviews.c.latest > fitted)))
            .order_by(reviews.c.user_id)
        ).all()
    return [user_id for (user_id,) in rows]


def refit_due(database: Database, now: datetime) -> int:
    """Refit every due user; a failure for one is logged and does not stop the others."""
    done = 0
    for user_id in due_users(database, now):
        try:
            with database.write_session() as session:
                optimizer.fit(session, user_id, now)
            done += 1
        except optimizer.NotEnoughHistory:
            continue  # reviews on a single day, or too few items for a split
        except Exception:
            logger.exception("weekly FSRS refit failed for user %s", user_id)
    return done


async def keep_refitting(
    database: Database, clock: Callable[[], datetime], every_s: float = CHECK_EVERY_S
) -> None:
    """While the server runs: every `every_s`, refit the users who are due (in a thread)."""
    while True:
        await anyio.sleep(every_s)
        try:
            await anyio.to_thread.run_sync(refit_due, database, clock())
        except Exception:
            logger.exception("weekly FSRS refit check failed; trying again in %.0f s", every_s)
