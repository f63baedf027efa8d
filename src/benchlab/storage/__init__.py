"""Storage: the results database (SQLite or PostgreSQL). schema.py names its tables' columns,
sql.py holds every statement, store.py is the one Store and open_store; engine.py is the
SQLAlchemy connection (PostgreSQL, other URLs, migrations) and migrations/ the revisions.
"""
