"""The evidence core: what turns a run into a receipt and receipts into an answer, below every door (the CLI, the
language server, hooks, the MCP server)."""
