"""freshpass: receipts for "the tests pass"."""

__version__ = "0.1.0"
