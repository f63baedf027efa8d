"""Finished units, so that `benchlab show` names the units of a run that never finished.

Frozen: the table as store.py created it from the start of fault handling (commit fb40970).
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "units",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("platform", sa.String(255), nullable=False),
        sa.Column("sweep", sa.JSON),
    )
    op.create_index("ix_units_run_id", "units", ["run_id"])
