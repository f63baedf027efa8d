"""Records are found by benchmark, counter and run (issue 29): `benchlab history NAME` reads
the latest runs of one benchmark's series, newest first, and stops once it has what it
shows. Without this index each of its queries read every record of the store (its samples
included: a 10,000-run store is gigabytes); with it, the runs of NAME are one range of the
index, walked from its newest end. Existing rows are indexed as they are."""
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.create_index("ix_records_bench_counter_run_id", "records", ["bench", "counter", "run_id"])
