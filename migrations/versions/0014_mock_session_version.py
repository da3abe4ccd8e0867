"""mock_sessions.version: a counter each change to a session bumps, for the live pages

Revision ID: 0014_mock_session_version
Revises: 0013_extra_new_cards
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_mock_session_version"
down_revision: str | None = "0013_extra_new_cards"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("mock_sessions") as batch:
        batch.add_column(
            sa.Column("version", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )


def downgrade() -> None:
    with op.batch_alter_table("mock_sessions") as batch:
        batch.drop_column("version")
