"""A parameter may be text (issue 28): the Lind runner's programs print `-` or `(STREAM, 1)`
where a test has no number. `param` stays a 64-bit integer, so that numbers keep their
numeric order and existing queries; a text parameter goes to `param_text` instead, with
`param` NULL. A record has one or the other (or neither); every existing row keeps its
number, and its `param_text` is NULL."""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.add_column("records", sa.Column("param_text", sa.String(255)))
