"""token expiry, idempotency keys on drill attempts, kinds of login attempt

API tokens may end (api_tokens.expires_at); a resent drill attempt returns the first one
(attempts.idempotency_key, unique per user); registrations are counted per address beside
sign-ins (login_attempts.kind: "sign-in" or "register").

Revision ID: 0008_expiry_keys_attempt_kinds
Revises: 0007_add_fsrs_parameters
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_expiry_keys_attempt_kinds"
down_revision: str | None = "0007_add_fsrs_parameters"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("idempotency_key", sa.String(length=100), nullable=True))
        batch_op.create_unique_constraint(
            batch_op.f("uq_attempts_user_id"), ["user_id", "idempotency_key"]
        )
    with op.batch_alter_table("login_attempts", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("kind", sa.String(length=16), server_default="sign-in", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("login_attempts", schema=None) as batch_op:
        batch_op.drop_column("kind")
    with op.batch_alter_table("attempts", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_attempts_user_id"), type_="unique")
        batch_op.drop_column("idempotency_key")
    with op.batch_alter_table("api_tokens", schema=None) as batch_op:
        batch_op.drop_column("expires_at")
