"""The freshpass language server (design §6, §7)."""
