"""FSRS's parameters fitted to one person's reviews, with fsrs-rs (the engine behind Anki's).

FSRS predicts recall with 21 parameters; the defaults are fitted to many people, and a person
who forgets faster or slower than them is scheduled too late or too early. Anki fits them to
each collection with fsrs-rs; `fsrs-rs-python` is its binding.

The fit is judged as Anki's "Evaluate" does (log loss and RMSE over binned predictions), on a
time-series split: the parameters are fitted on the earlier 80% of the history and scored,
with the current ones, on the later 20% they never saw. Only if the fitted ones predict that
later part better are parameters fitted on the whole history kept. Each card's history
becomes one FSRS item per review after its first day (what the review recalled, with the
days between reviews), as Anki converts its revlog.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from fsrs.scheduler import DEFAULT_PARAMETERS, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS
from fsrs_rs_python import FSRS, FSRSItem, FSRSReview
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.errors import FieldError
from app.models import ReviewLog, ReviewSettings
from app.srs import settings as srs_settings
from app.srs.days import as_utc, study_day

MIN_REVIEWS = 512  # below this py-fsrs's optimizer returns the defaults: too little to fit
TRAIN_SHARE = 0.8


class NotEnoughHistory(Exception):
    def __init__(self, have: int, need: int = MIN_REVIEWS) -> None:
        super().__init__(f"{need} reviews are needed to fit your parameters; you have {have}")
        self.have, self.need = have, need


@dataclass(frozen=True)
class Fit:
    parameters: tuple[float, ...]  # the ones kept: fitted, or the current ones if better
    reviews_used: int
    log_loss_before: float
    log_loss_after: float
    rmse_before: float
    rmse_after: float
    improved: bool


def check_parameters(values: Sequence[float]) -> None:
    """Refuse parameters FSRS would refuse (count and bounds), naming the field."""
    if len(values) != len(DEFAULT_PARAMETERS):
        raise FieldError("fsrs_parameters", f"must be {len(DEFAULT_PARAMETERS)} numbers")
    for index, (value, low, high) in enumerate(
        zip(values, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)
    ):
        if not low <= value <= high:  # also refuses NaN
            raise FieldError("fsrs_parameters", f"w{index} must be between {low} and {high}")


@dataclass(frozen=True)
class _Item:
    item: FSRSItem
    at: datetime  # when its last review was given


def to_items(
    logs: Sequence[tuple[str, int, datetime]], timezone: str, boundary: int
) -> list[_Item]:
    """(card_id, rating, reviewed_at) in time order → one item per later-day review."""
    by_card: dict[str, list[tuple[int, datetime]]] = {}
    for card_id, rating, at in logs:
        by_card.setdefault(card_id, []).append((rating, as_utc(at)))
    items = []
    for history in by_card.values():
        reviews: list[tuple[int, int]] = []  # (rating, days since the previous review)
        previous = None
        for rating, at in history:
            day = study_day(at, timezone, boundary)
            reviews.append((rating, 0 if previous is None else (day - previous).days))
            previous = day
            # An item ends at each review on a later day than the one before: what FSRS
            # predicts is recall after days, not the same-day learning steps.
            if len(reviews) > 1 and reviews[-1][1] > 0:
                item = FSRSItem([FSRSReview(r, delta) for r, delta in reviews])
                items.append(_Item(item, at))
    items.sort(key=lambda found: found.at)
    return items


def fit(session: Session, user_id: int, now: datetime) -> Fit:
    """Fit, evaluate against the current parameters, and store the better; see the module."""
    settings = srs_settings.load(session, user_id)
    logs = session.execute(
        select(ReviewLog.card_id, ReviewLog.rating, ReviewLog.reviewed_at)
        .where(ReviewLog.user_id == user_id)
        .order_by(ReviewLog.reviewed_at, ReviewLog.id)
    ).all()
    if len(logs) < MIN_REVIEWS:
        raise NotEnoughHistory(len(logs))
    items = to_items(
        [(c, r, at) for c, r, at in logs], settings.timezone, settings.day_boundary_hour
    )
    cut = int(len(items) * TRAIN_SHARE)
    train, test = items[:cut], items[cut:]
    if not train or not test:
        raise NotEnoughHistory(len(logs))
    current = tuple(settings.fsrs_parameters or DEFAULT_PARAMETERS)
    before = FSRS(list(current)).evaluate([i.item for i in test])
    candidate = FSRS(list(DEFAULT_PARAMETERS)).compute_parameters([i.item for i in train])
    after = FSRS(candidate).evaluate([i.item for i in test])
    improved = after.log_loss < before.log_loss
    kept = current
    if improved:
        kept = tuple(FSRS(list(DEFAULT_PARAMETERS)).compute_parameters([i.item for i in items]))
        check_parameters(kept)
    _store(session, user_id, settings, kept, now)
    return Fit(
        parameters=kept,
        reviews_used=len(logs),
        log_loss_before=before.log_loss,
        log_loss_after=after.log_loss if improved else before.log_loss,
        rmse_before=before.rmse_bins,
        rmse_after=after.rmse_bins if improved else before.rmse_bins,
        improved=improved,
    )


def _store(
    session: Session,
    user_id: int,
    settings: srs_settings.Settings,
    kept: tuple[float, ...],
    now: datetime,
) -> None:
    row = session.get(ReviewSettings, user_id)
    if row is None:
        values = {k: v for k, v in settings.__dict__.items() if k != "fsrs_parameters"}
        row = ReviewSettings(user_id=user_id, **values)
        session.add(row)
    stored = None if kept == tuple(DEFAULT_PARAMETERS) else list(kept)  # None: the defaults
    changed = row.fsrs_parameters != stored
    row.fsrs_parameters = stored
    row.parameters_fitted_at = now
    session.flush()
    if changed:  # due dates follow the new model, as after a new retention target
        srs_settings.reschedule_all(session, user_id, settings.desired_retention, kept)
