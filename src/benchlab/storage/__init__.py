"""Storage: the results database (SQLite or PostgreSQL), its reads and its migrations.
"""
