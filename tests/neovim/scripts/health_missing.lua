-- :checkhealth freshpass when the `freshpass` command is not on PATH: an ERROR that says how to fix it, and a
-- warning that no server runs (nothing crashes).
-- Usage: PATH=<without freshpass> nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l health_missing.lua
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))

vim.lsp.enable('freshpass')
vim.cmd('checkhealth freshpass')
local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
io.stdout:write(report, '\n')
local function expect(text)
  H.check(report:find(text, 1, true), ('the health report should contain %q:\n%s'):format(text, report))
end
expect('OK Neovim 0.11')
expect('ERROR `freshpass` is not executable or not on PATH')
expect('vim.lsp.config("freshpass", { cmd = { "/path/to/freshpass", "serve" } })')
expect('WARNING no freshpass server is running')
expect('OK ledger writable')
H.done()
