"""extra_new_cards: new cards asked for on top of the day's limit or plan ("Learn more today")

Revision ID: 0013_extra_new_cards
Revises: 0012_mock_pairings
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_extra_new_cards"
down_revision: str | None = "0012_mock_pairings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "extra_new_cards",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_extra_new_cards_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_extra_new_cards")),
    )


def downgrade() -> None:
    op.drop_table("extra_new_cards")
