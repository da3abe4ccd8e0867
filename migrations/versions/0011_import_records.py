"""import_records: one row per imported file, so imports per day can be capped

Revision ID: 0011_import_records
Revises: 0010_mock_followup_reason
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_import_records"
down_revision: str | None = "0010_mock_followup_reason"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "import_records",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_import_records_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_records")),
    )
    op.create_index("ix_import_records_user_at", "import_records", ["user_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_import_records_user_at", table_name="import_records")
    op.drop_table("import_records")
