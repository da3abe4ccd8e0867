"""add fsrs_parameters: FSRS's parameters fitted to each user, and when

Revision ID: 0007_add_fsrs_parameters
Revises: 0006_create_study_plans
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_add_fsrs_parameters"
down_revision: str | None = "0006_create_study_plans"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("review_settings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fsrs_parameters", sa.JSON(), nullable=True))
        batch_op.add_column(
            sa.Column("parameters_fitted_at", sa.DateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("review_settings", schema=None) as batch_op:
        batch_op.drop_column("parameters_fitted_at")
        batch_op.drop_column("fsrs_parameters")
