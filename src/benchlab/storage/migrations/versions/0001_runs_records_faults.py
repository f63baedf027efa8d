"""The first stored runs: runs, their records and their faults.

Frozen: the tables as benchlab 0.1's store.py created them (metadata.create_all) before
the schema had revisions. A database made then is stamped at this revision (or 0002 when
it has `units`) and upgraded from there; see benchlab.storage.migrations.
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("started_at", sa.String(32), nullable=False),
        sa.Column("finished_at", sa.String(32)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("exit_code", sa.Integer),
        sa.Column("host", sa.String(255)),
        sa.Column("pid", sa.Integer),
        sa.Column("argv", sa.JSON),
        sa.Column("platforms", sa.JSON),
        sa.Column("context", sa.JSON),
    )
    op.create_table(
        "records",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("platform", sa.String(255), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("bench", sa.String(255), nullable=False),
        sa.Column("param", sa.BigInteger),
        sa.Column("param_name", sa.String(255)),
        sa.Column("counter", sa.String(255), nullable=False),
        sa.Column("unit", sa.String(32), nullable=False),
        sa.Column("format", sa.String(32)),
        sa.Column("iterations", sa.BigInteger),
        sa.Column("median", sa.Float),
        sa.Column("sweep", sa.JSON),
        sa.Column("samples", sa.JSON, nullable=False),
        sa.Column("sample_iterations", sa.JSON),
        sa.Column("summary", sa.JSON),
        sa.Column("reported", sa.JSON),
    )
    op.create_index("ix_records_run_id", "records", ["run_id"])
    op.create_table(
        "faults",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("platform", sa.String(255), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("stderr_tail", sa.JSON),
        sa.Column("sweep", sa.JSON),
    )
    op.create_index("ix_faults_run_id", "faults", ["run_id"])
