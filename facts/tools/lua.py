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
    test_dirs=frozenset({"spec"}),  # busted's default ROOT: `busted spec` is the whole suite
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


@tool("nvim")
def _nvim(tokens: tuple[str, ...]) -> Identification:
    """Headless Neovim running a test harness: plenary's `PlenaryBustedDirectory DIR` (the suite) or
    `PlenaryBustedFile FILE` (one file), or a test script given with `-u`/`-l` (`-u scripts/test.lua`)."""
    args = tokens[1:]
    if "--headless" not in args and "-l" not in args:
        return None
    for arg in args:
        if "PlenaryBustedDirectory" in arg:
            return Identified(NVIM_TEST, 1, "test", "nvim PlenaryBusted")
        if "PlenaryBustedFile" in arg:
            return Identified(NVIM_ONE_FILE, 1, "test", "nvim PlenaryBusted")
    for i, arg in enumerate(args[:-1]):
        if arg in ("-u", "-l", "-S", "-c", "--cmd", "+") and "test" in args[i + 1].lower():
            return Identified(NVIM_TEST, 1, "test", "nvim test script")
    return None


# The files and directories a plenary or script run names are in its `-c` commands, not its positionals.
NVIM_TEST = Runner(
    "nvim",
    "test",
    opts("-u -c --cmd -l -S -i --listen"),
    frozenset(),
    positionals="never",
)
# `PlenaryBustedFile FILE` runs that one spec file: its `-c` command selects.
NVIM_ONE_FILE = Runner("nvim", "test", NVIM_TEST.value_options, opts("-c"), positionals="never")


@tool("stylua")
def _stylua(tokens: tuple[str, ...]) -> Identification:
    return formatter("stylua", tokens[1:], check=("--check", "-c"))
