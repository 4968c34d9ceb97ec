"""Lua's tools: busted, vusted (busted inside Neovim), plenary's test harness, luacheck, selene, stylua."""

from __future__ import annotations

from .base import Identification, Identified, Runner, formatter, opts, tool
from .generic import LINT_PATHS

BUSTED = Runner(
    "busted",
    "test",
    opts("-t --tags --exclude-tags -f --filter --filter-out -p --pattern -o --output -r --run --lpath --cpath -e"),
    opts("-t --tags --exclude-tags -f --filter --filter-out -p --pattern -r --run"),
    positionals="paths",
)


@tool("busted", "vusted", "luatest")
def _busted(tokens: tuple[str, ...]) -> Identification:
    return Identified(BUSTED, 1, "test", tokens[0])


@tool("luacheck", "selene", "lua-language-server")
def _lua_linters(tokens: tuple[str, ...]) -> Identification:
    if tokens[0] == "lua-language-server":
        return (
            Identified(LINT_PATHS, 1, "typecheck", "lua-language-server --check")
            if "--check" in " ".join(tokens)
            else None
        )
    return Identified(LINT_PATHS, 1, "lint", tokens[0])


@tool("stylua")
def _stylua(tokens: tuple[str, ...]) -> Identification:
    return formatter("stylua", tokens[1:], check=("--check", "-c"))
