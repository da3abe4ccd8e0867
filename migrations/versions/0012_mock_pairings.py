"""mock_pairings: a friend's interviewer link per session; the interviewer's marks

Revision ID: 0012_mock_pairings
Revises: 0011_import_records
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_mock_pairings"
down_revision: str | None = "0011_import_records"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mock_pairings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["mock_sessions.id"],
            name=op.f("fk_mock_pairings_session_id_mock_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mock_pairings")),
        sa.UniqueConstraint("session_id", name=op.f("uq_mock_pairings_session_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_mock_pairings_token_hash")),
    )
    with op.batch_alter_table("mock_questions") as batch:
        batch.add_column(sa.Column("interviewer_points", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("interviewer_rating", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("interviewer_followup", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mock_questions") as batch:
        batch.drop_column("interviewer_followup")
        batch.drop_column("interviewer_rating")
        batch.drop_column("interviewer_points")
    op.drop_table("mock_pairings")
