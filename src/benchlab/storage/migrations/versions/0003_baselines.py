"""Baselines: a name for a stored run, with the date it was saved (`benchlab baseline`).

A run a baseline names cannot be deleted (RESTRICT): the baseline would point nowhere,
or, as SQLite reuses the highest free id, at a later run.
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.create_table(
        "baselines",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="RESTRICT"), nullable=False),
        sa.Column("saved_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("name", name="uq_baselines_name"),
    )
    op.create_index("ix_baselines_run_id", "baselines", ["run_id"])
