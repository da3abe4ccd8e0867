"""create attempts: every typed answer to a numeric card

Revision ID: 0002_create_attempts
Revises: 0001_create_users
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_create_attempts"
down_revision: str | None = "0001_create_users"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "attempts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=80), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("drawn_values", sa.JSON(), nullable=False),
        sa.Column("answer", sa.String(length=200), nullable=False),
        sa.Column("given_value", sa.Float(), nullable=False),
        sa.Column("expected_value", sa.Float(), nullable=False),
        sa.Column("unit", sa.String(length=16), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_attempts_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attempts")),
    )
    op.create_index(
        "ix_attempts_user_card", "attempts", ["user_id", "card_id", "created_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_attempts_user_card", table_name="attempts")
    op.drop_table("attempts")
