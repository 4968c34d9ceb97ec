-- setup() settings reach the server, :Freshpass completion and errors, :Freshpass restart.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l commands.lua PROJECT
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local project = assert(_G.arg[1], 'usage: commands.lua PROJECT')
local source = vim.fs.joinpath(project, 'src', 'calc.py')
local freshpass = require('freshpass')

-- The config comes from lsp/freshpass.lua on 'runtimepath'.
local config = vim.lsp.config.freshpass
H.check(config and vim.deep_equal(config.cmd, { 'freshpass', 'serve' }), 'lsp/freshpass.lua provides cmd')
H.check(config.filetypes == nil, 'no filetypes: the server attaches to every file')
H.check(config.root_markers[1] == '.git', 'the git root wins: ' .. vim.inspect(config.root_markers))

-- Optional setup(): a setting sent to the server changes what it publishes (hint instead of warning).
freshpass.setup({ settings = { diagnostics = { severity = 'hint' } } })
H.check(vim.lsp.is_enabled('freshpass'), 'setup() enables the server')
local bufnr, client = H.open(source)
H.check(
  client.root_dir == vim.uv.fs_realpath(project) or client.root_dir == project,
  'the git root is the workspace: ' .. tostring(client.root_dir)
)

vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { '# changed' })
vim.cmd.write()
local diagnostic = H.wait_for('a freshpass diagnostic after the write', function()
  return H.freshpass_diagnostics(source)[1]
end)
H.check(
  diagnostic.severity == vim.diagnostic.severity.HINT,
  'freshpass.diagnostics.severity = "hint" reaches the server; got severity ' .. diagnostic.severity
)

-- Completion of subcommands and of verify's argument.
local names = vim.fn.getcompletion('Freshpass ', 'cmdline')
for _, name in ipairs({ 'cancel', 'log', 'output', 'restart', 'status', 'verify' }) do
  H.check(vim.list_contains(names, name), ('completion offers %s: %s'):format(name, vim.inspect(names)))
end
H.check(vim.deep_equal(vim.fn.getcompletion('Freshpass ve', 'cmdline'), { 'verify' }), 'completion filters by prefix')
local verify_args = vim.fn.getcompletion('Freshpass verify ', 'cmdline')
H.check(vim.list_contains(verify_args, 'targeted') and vim.list_contains(verify_args, 'lint'), vim.inspect(verify_args))

-- A mistyped subcommand says what exists instead of failing silently.
-- (An error message inside a command run from Lua becomes an exception, as with :echoerr.)
local ok, err = pcall(vim.cmd, 'Freshpass verfy')
H.check(not ok and err:find('unknown subcommand "verfy"', 1, true), 'unknown subcommand: ' .. tostring(err))
ok, err = pcall(vim.cmd, 'Freshpass verify everything')
H.check(not ok and err:find('unknown verify argument "everything"', 1, true), 'bad argument: ' .. tostring(err))

-- A targeted check of the current file: a fresh but narrower pass.
vim.cmd('Freshpass verify targeted')
H.wait_for('the statusline `◐ targeted` after :Freshpass verify targeted', function()
  return freshpass.statusline(bufnr) == '◐ targeted'
end)
H.wait_for('a `targeted` lens', function()
  return H.lens_with(bufnr, '◐ targeted')
end)

-- Restart: a new server attaches to the same buffer and the status comes back.
local old_id = client.id
vim.cmd('Freshpass restart')
local new_client = H.wait_for('a new freshpass server after :Freshpass restart', function()
  local current = vim.lsp.get_clients({ name = 'freshpass', bufnr = bufnr })[1]
  return current and current.id ~= old_id and current.initialized and current
end)
H.check(vim.lsp.get_client_by_id(old_id) == nil, 'the old server is gone after the restart')
H.wait_for('the status lens from the new server', function()
  return H.lens_with(bufnr, '◐ targeted')
end)
H.wait_for('the statusline from the new server', function()
  return freshpass.statusline(bufnr) == '◐ targeted'
end)
H.check(#vim.lsp.get_clients({ name = 'freshpass' }) == 1, 'exactly one freshpass server after the restart')
H.check(new_client.settings.freshpass.diagnostics.severity == 'hint', 'the restarted server keeps the settings')
H.done()
