"""The SQLite evidence ledger, content ids and freshness (design §4)."""
