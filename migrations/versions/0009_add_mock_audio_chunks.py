"""add mock_audio_chunks: spoken answers to mock questions, chunk by chunk

Revision ID: 0009_add_mock_audio_chunks
Revises: 0008_expiry_keys_attempt_kinds
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_add_mock_audio_chunks"
down_revision: str | None = "0008_expiry_keys_attempt_kinds"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mock_audio_chunks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("part", sa.String(length=8), nullable=False),
        sa.Column("take", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("mime", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"],
            ["mock_questions.id"],
            name=op.f("fk_mock_audio_chunks_question_id_mock_questions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mock_audio_chunks")),
        sa.UniqueConstraint(
            "question_id", "part", "take", "seq", name=op.f("uq_mock_audio_chunks_question_id")
        ),
    )
    with op.batch_alter_table("mock_audio_chunks", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_mock_audio_chunks_question_id"), ["question_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("mock_audio_chunks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mock_audio_chunks_question_id"))
    op.drop_table("mock_audio_chunks")
