"""mock_questions: the follow-up's probes and reason, kept when it is chosen

Revision ID: 0010_mock_followup_reason
Revises: 0009_add_mock_audio_chunks
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_mock_followup_reason"
down_revision: str | None = "0009_add_mock_audio_chunks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("mock_questions") as batch:
        batch.add_column(sa.Column("followup_probes", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("followup_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mock_questions") as batch:
        batch.drop_column("followup_reason")
        batch.drop_column("followup_probes")
