"""`freshpass mcp`: the evidence core as an MCP server (design §7.3), a door beside the language server and the
command line. It runs on the official `mcp` SDK; nothing here speaks the protocol by hand."""
