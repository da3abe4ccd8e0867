"""create mock interview tables

Revision ID: 0004_create_mock_tables
Revises: 0003_create_review_tables
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_create_mock_tables"
down_revision: str | None = "0003_create_review_tables"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mock_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("preset", sa.String(length=32), nullable=False),
        sa.Column("minutes_per_question", sa.Integer(), nullable=False),
        sa.Column("followups", sa.Boolean(), nullable=False),
        sa.Column("grade_after_each", sa.Boolean(), nullable=False),
        sa.Column("topics", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_mock_sessions_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mock_sessions")),
    )
    with op.batch_alter_table("mock_sessions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_mock_sessions_user_created", ["user_id", "created_at"], unique=False
        )

    op.create_table(
        "mock_questions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("card_id", sa.String(length=80), nullable=False),
        sa.Column("followup", sa.Text(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("followup_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("followup_deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("followup_answer", sa.Text(), nullable=False),
        sa.Column("followup_submitted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("suggested_points", sa.JSON(), nullable=True),
        sa.Column("confirmed_points", sa.JSON(), nullable=True),
        sa.Column("rating", sa.Integer(), nullable=True),
        sa.Column("graded_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["mock_sessions.id"],
            name=op.f("fk_mock_questions_session_id_mock_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mock_questions")),
        sa.UniqueConstraint("session_id", "position", name=op.f("uq_mock_questions_session_id")),
    )


def downgrade() -> None:
    op.drop_table("mock_questions")
    with op.batch_alter_table("mock_sessions", schema=None) as batch_op:
        batch_op.drop_index("ix_mock_sessions_user_created")

    op.drop_table("mock_sessions")
