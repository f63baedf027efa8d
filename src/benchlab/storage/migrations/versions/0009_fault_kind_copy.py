"""A fault says what kind it is (issue 30): `kind` is 'failed' (a process that did not
finish normally) or 'not-built' (a binary its platform cannot build), and `copy` which copy
of an `instances` sweep failed (from 1; NULL for a fault of a whole process). Before, both
were only in the reason's words.

Existing rows are read for them: a reason that starts with "not built for " (the prefix of
measuring/buildable.py's faults) is kind 'not-built', one that starts with "copy N of M: "
(measuring/instances.py's) has copy N. The words are written here, not imported: this
revision must do the same whatever those modules say later.
"""
import re

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"

NOT_BUILT_PREFIX = "not built for "
COPY_FAULT = re.compile(r"^copy (\d+) of (\d+): ")
#: Faults read, and their copies written, per statement: a store's faults need not fit in memory at once.
BATCH = 1000


def upgrade() -> None:
    op.add_column("faults", sa.Column("kind", sa.String(16), nullable=False, server_default="failed"))
    op.add_column("faults", sa.Column("copy", sa.Integer))
    connection = op.get_bind()
    connection.execute(sa.text("UPDATE faults SET kind = 'not-built' WHERE substr(reason, 1, :length) = :prefix"),
                       {"length": len(NOT_BUILT_PREFIX), "prefix": NOT_BUILT_PREFIX})
    after = 0
    while True:
        page = connection.execute(sa.text(
            "SELECT id, reason FROM faults WHERE id > :after AND substr(reason, 1, 5) = 'copy ' ORDER BY id LIMIT :batch"),
            {"after": after, "batch": BATCH}).all()
        copies = [{"id": row.id, "copy": int(match.group(1))} for row in page
                  if (match := COPY_FAULT.match(row.reason))]
        if copies:
            connection.execute(sa.text("UPDATE faults SET copy = :copy WHERE id = :id"), copies)
        if len(page) < BATCH:
            return
        after = page[-1].id
