--- Defaults shared by `lsp/freshpass.lua`, `setup()` and the health check.
---
--- The settings are the `freshpass.*` names and defaults of the root `package.json` (their one source, listed in
--- docs/configuration.md), through the generated `freshpass.settings_defaults`. `server.command` is `cmd` here
--- and `terminalEvidence` is a VS Code feature, so neither appears in the Lua settings.
local M = {}

--- The name of the config in `vim.lsp.config` and of the client.
M.name = 'freshpass'

--- Files that mark a project root, highest priority first. A git root wins (design §1); otherwise the nearest
--- directory holding any manifest (equal priority, hence the nested list). Same names as facts/roots.py (every
--- ecosystem record's manifests and root markers, then the task-runner files).
M.root_markers = {
  '.git',
  {
    '.freshpass.toml',
    'pyproject.toml',
    'setup.py',
    'setup.cfg',
    'tox.ini',
    'noxfile.py',
    'package.json',
    'deno.json',
    'deno.jsonc',
    'Cargo.toml',
    'go.mod',
    'go.work',
    'build.gradle',
    'build.gradle.kts',
    'settings.gradle',
    'settings.gradle.kts',
    'pom.xml',
    'Gemfile',
    'composer.json',
    '.busted',
    'global.json',
    'Directory.Build.props',
    'Package.swift',
    'stack.yaml',
    'cabal.project',
    'build.zig',
    'build.zig.zon',
    'pubspec.yaml',
    'build.sbt',
    'CMakeLists.txt',
    'CMakePresets.json',
    'meson.build',
    'configure.ac',
    'configure.in',
    'Makefile.PL',
    'Build.PL',
    'cpanfile',
    'dist.ini',
    'MODULE.bazel',
    'WORKSPACE',
    'WORKSPACE.bazel',
    'project.clj',
    'dune-project',
    'rebar.config',
    'gleam.toml',
    'Project.toml',
    'JuliaProject.toml',
    'DESCRIPTION',
    'mix.exs',
    'Makefile',
    'GNUmakefile',
    'justfile',
    'Justfile',
    'Taskfile.yml',
    'Taskfile.yaml',
  },
}

--- The `freshpass` settings object the server reads (nested as VS Code's `getConfiguration('freshpass')`).
--- A function so that every caller gets its own copy to modify.
--- @return table
M.default_settings = require('freshpass.settings_defaults')

--- Options of the Neovim plugin itself (not sent to the server); changed through `require('freshpass').setup()`.
M.options = {
  --- Refresh code lenses of attached buffers on attach, BufEnter, write and status changes.
  codelens = true,
  --- Open the output window when a verify starts from `:Freshpass verify` (output is always collected).
  open_output = false,
}

return M
