"""Runs made by `benchlab import` carry the imported file's sha256 in a column of their
own, indexed, so that finding an earlier import of the same content (which `import`
refuses without --again) is one lookup instead of a read of every run's context.
Existing imported runs get it from their context."""
import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.add_column("runs", sa.Column("imported_sha256", sa.String(64)))
    op.create_index("ix_runs_imported_sha256", "runs", ["imported_sha256"])
    runs = sa.table("runs", sa.column("id", sa.Integer), sa.column("context", sa.JSON),
                    sa.column("imported_sha256", sa.String(64)))
    connection = op.get_bind()
    found = []
    for row in connection.execute(sa.select(runs.c.id, runs.c.context)):
        imported = row.context.get("imported") if isinstance(row.context, dict) else None
        digest = imported.get("sha256") if isinstance(imported, dict) else None
        if isinstance(digest, str) and len(digest) <= 64:
            found.append({"run_id": row.id, "digest": digest})
    if found:
        connection.execute(runs.update().where(runs.c.id == sa.bindparam("run_id"))
                           .values(imported_sha256=sa.bindparam("digest")), found)
