"""add mock_transcripts: what was said in each recorded take, and its state

Revision ID: 0015_mock_transcripts
Revises: 0014_mock_session_version
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_mock_transcripts"
down_revision: str | None = "0014_mock_session_version"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mock_transcripts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("part", sa.String(length=8), nullable=False),
        sa.Column("take", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("error", sa.String(length=200), nullable=True),
        sa.Column("edited", sa.Boolean(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["mock_questions.id"],
            name=op.f("fk_mock_transcripts_question_id_mock_questions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mock_transcripts")),
        sa.UniqueConstraint(
            "question_id", "part", "take", name=op.f("uq_mock_transcripts_question_id")
        ),
    )
    with op.batch_alter_table("mock_transcripts", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_mock_transcripts_question_id"), ["question_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_mock_transcripts_state"), ["state"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("mock_transcripts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mock_transcripts_state"))
        batch_op.drop_index(batch_op.f("ix_mock_transcripts_question_id"))
    op.drop_table("mock_transcripts")
