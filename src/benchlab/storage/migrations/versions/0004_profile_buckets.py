"""Profiles: a run's samples (or instructions) folded into named buckets (`benchlab profile`),
one row per bucket, platform and kind (self or inclusive)."""
import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "profile_buckets",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("platform", sa.String(255), nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("bucket", sa.String(255), nullable=False),
        sa.Column("samples", sa.BigInteger, nullable=False),
        sa.Column("share", sa.Float, nullable=False),
        sa.Column("top_symbols", sa.JSON),
    )
    op.create_index("ix_profile_buckets_run_id", "profile_buckets", ["run_id"])
