"""create review tables: settings, card states (FSRS memory) and review logs

Revision ID: 0003_create_review_tables
Revises: 0002_create_attempts
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_create_review_tables"
down_revision: str | None = "0002_create_attempts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "card_states",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=80), nullable=False),
        sa.Column("state", sa.Integer(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("stability", sa.Float(), nullable=True),
        sa.Column("difficulty", sa.Float(), nullable=True),
        sa.Column("due", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_review", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reps", sa.Integer(), nullable=False),
        sa.Column("lapses", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_card_states_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_card_states")),
        sa.UniqueConstraint("user_id", "card_id", name=op.f("uq_card_states_user_id")),
    )
    with op.batch_alter_table("card_states", schema=None) as batch_op:
        batch_op.create_index("ix_card_states_user_due", ["user_id", "due"], unique=False)

    op.create_table(
        "review_logs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=80), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("was_new", sa.Boolean(), nullable=False),
        sa.Column("idempotency_key", sa.String(length=100), nullable=True),
        sa.Column("state_before", sa.JSON(), nullable=True),
        sa.Column("state_after", sa.JSON(), nullable=False),
        sa.Column("interval_days", sa.Float(), nullable=False),
        sa.Column("prior_interval_days", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_review_logs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_logs")),
        sa.UniqueConstraint("user_id", "idempotency_key", name=op.f("uq_review_logs_user_id")),
    )
    with op.batch_alter_table("review_logs", schema=None) as batch_op:
        batch_op.create_index("ix_review_logs_user_card", ["user_id", "card_id"], unique=False)
        batch_op.create_index("ix_review_logs_user_time", ["user_id", "reviewed_at"], unique=False)

    op.create_table(
        "review_settings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("desired_retention", sa.Float(), nullable=False),
        sa.Column("new_per_day", sa.Integer(), nullable=False),
        sa.Column("max_reviews_per_day", sa.Integer(), nullable=False),
        sa.Column("day_boundary_hour", sa.Integer(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_review_settings_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_review_settings")),
    )


def downgrade() -> None:
    op.drop_table("review_settings")
    with op.batch_alter_table("review_logs", schema=None) as batch_op:
        batch_op.drop_index("ix_review_logs_user_time")
        batch_op.drop_index("ix_review_logs_user_card")

    op.drop_table("review_logs")
    with op.batch_alter_table("card_states", schema=None) as batch_op:
        batch_op.drop_index("ix_card_states_user_due")

    op.drop_table("card_states")
