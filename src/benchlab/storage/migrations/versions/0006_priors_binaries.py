"""Machine priors and baseline binaries (issue 17).

`machine_priors`: what `benchlab calibrate` measured of a machine's between-run noise, one
row per kind of kernel (loop-bound, latency-bound, syscall), the newest calibration of a
machine standing for it; the figure a benchmark with no identical-code history takes.

`binaries`: executables, content-addressed by their sha256, kept in the database so that
a baseline's binaries travel with it (SQLite file or PostgreSQL alike), and
`baseline_binaries`, which baseline keeps which of them for which unit: `gate` runs them
again beside the candidate's. Deleting a baseline deletes its rows (CASCADE); a binary no
baseline names any more is deleted with it (Store.delete_baseline).
"""
import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "machine_priors",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("machine", sa.String(16), nullable=False),
        sa.Column("host", sa.String(255)),
        sa.Column("cpu", sa.String(255)),
        sa.Column("kernel", sa.String(255)),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("variance", sa.Float, nullable=False),
        sa.Column("df", sa.Integer, nullable=False),
        sa.Column("process_cv2", sa.Float, nullable=False),
        sa.Column("process_df", sa.Integer, nullable=False),
        sa.Column("runs", sa.Integer, nullable=False),
        sa.Column("measured_at", sa.String(32), nullable=False),
        sa.Column("load", sa.Float),
    )
    op.create_index("ix_machine_priors_machine", "machine_priors", ["machine"])
    op.create_table(
        "binaries",
        sa.Column("sha256", sa.String(64), primary_key=True),
        sa.Column("bytes", sa.BigInteger, nullable=False),
        sa.Column("content", sa.LargeBinary, nullable=False),
    )
    op.create_table(
        "baseline_binaries",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("baseline_id", sa.Integer, sa.ForeignKey("baselines.id", ondelete="CASCADE"), nullable=False),
        sa.Column("binary", sa.String(255), nullable=False),
        sa.Column("platform", sa.String(255), nullable=False),
        sa.Column("sha256", sa.String(64), sa.ForeignKey("binaries.sha256"), nullable=False),
        sa.Column("file_name", sa.String(255), nullable=False),
    )
    op.create_index("ix_baseline_binaries_baseline_id", "baseline_binaries", ["baseline_id"])
