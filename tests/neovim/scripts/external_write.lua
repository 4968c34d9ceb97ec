-- A file written behind the editor's back (a terminal, an agent, git): no LSP message at all, yet the server's
-- watcher notices, the statusline and the lens turn `unverified`, and the written file gets the diagnostic.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l external_write.lua PROJECT
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local project = assert(_G.arg[1], 'usage: external_write.lua PROJECT')
local source = vim.fs.joinpath(project, 'src', 'calc.py')
local other = vim.fs.joinpath(project, 'src', 'other.py')
local freshpass = require('freshpass')

vim.lsp.enable('freshpass')
local bufnr = H.open(source)
vim.cmd('Freshpass verify')
H.wait_for('the statusline `✓ full` after :Freshpass verify', function()
  return freshpass.statusline(bufnr) == '✓ full'
end)
H.wait_for('a `full` lens', function()
  return H.lens_with(bufnr, '✓ full')
end)

local file = assert(io.open(other, 'a'))
file:write('\nVALUE = 2\n')
file:close()

H.wait_for('the statusline `⚠ unverified` after an external write', function()
  return freshpass.statusline(bufnr) == '⚠ unverified'
end)
H.wait_for('a freshpass diagnostic on the externally written file', function()
  return H.freshpass_diagnostics(other)[1]
end)
H.wait_for('an `unverified` lens on the open buffer', function()
  return H.lens_with(bufnr, 'unverified')
end)
H.check(vim.fn.bufloaded(other) == 0, 'the written file was never opened in the editor')
H.done()
