"""Lua: busted (`.busted`, or a rockspec with `spec/`), luacheck, selene, StyLua."""

from __future__ import annotations

from freshpass.facts.model import Kind
from freshpass.facts.signals.base import Candidate, Collector, Package, under

from .base import Ecosystem, Vocabulary
from .base import add_convention as _convention

_LUA_TOOLS: tuple[tuple[str, str, Kind], ...] = (
    (".luacheckrc", "luacheck .", "lint"),
    ("selene.toml", "selene .", "lint"),
    ("stylua.toml", "stylua --check .", "lint"),
    (".stylua.toml", "stylua --check .", "lint"),
)


def _lua(c: Collector, package: Package) -> None:
    busted = under(package.cwd, ".busted")
    rockspecs = [n for n in c.listdir(package.cwd) if n.endswith(".rockspec")] if package.cwd == "." else []
    if c.is_file(busted):
        c.manifest(busted)
        _convention(c, "busted", "test", package.cwd, busted)
    elif rockspecs and c.is_dir(under(package.cwd, "spec")):
        _convention(c, "busted", "test", package.cwd, rockspecs[0])
    for config, tool, kind in _LUA_TOOLS:
        path = under(package.cwd, config)
        if c.is_file(path):
            c.manifest(path)
            c.add(Candidate(tool, package.cwd, path, "tool", kind=kind, body=(tool,)))


ECOSYSTEM = Ecosystem(
    name="lua",
    title="Lua (busted, LuaRocks)",
    manifests=(".busted",),
    manifest_globs=("*.rockspec",),
    package_manager="",
    vocabulary=Vocabulary(
        runners=("busted", "vusted", "luarocks", "luacheck", "stylua"),
        narrowing=(
            "-t/--tags",
            "--exclude-tags",
            "-f/--filter",
            "--filter-out",
            "-p/--pattern",
            "-r/--run",
            "a spec file",
        ),
        writers=("stylua (without --check)",),
        test_dirs=("spec",),  # busted's default ROOT
    ),
    read=_lua,
    docs="https://lunarmodules.github.io/busted/#usage",
)
