"""Test support for running the suite on PostgreSQL as well as SQLite."""
