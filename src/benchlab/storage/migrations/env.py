"""Alembic's environment: run by benchlab.storage.migrations.upgrade on the connection it opened.

The connection arrives in a transaction that holds the schema lock, so Alembic neither
begins nor commits one: every revision and the version row commit together, or not at all.
There is no alembic.ini and no offline (--sql) mode; the store migrates itself when opened.
"""
from alembic import context

from benchlab.storage.schema import VERSION_TABLE, metadata

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=metadata(),
    version_table=VERSION_TABLE,
    # SQLite alters a table by copying it ("batch" mode); a later revision that changes a
    # column must use op.batch_alter_table to run on both engines.
    render_as_batch=True,
)
with context.begin_transaction():
    context.run_migrations()
