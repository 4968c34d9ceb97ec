-- :checkhealth freshpass with the server attached: every check OK, no error, no warning.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l health.lua PROJECT
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local project = assert(_G.arg[1], 'usage: health.lua PROJECT')
local expected_version = assert(_G.arg[2], 'usage: health.lua PROJECT VERSION')

vim.lsp.enable('freshpass')
H.open(vim.fs.joinpath(project, 'src', 'calc.py'))

vim.cmd('checkhealth freshpass')
local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local report = table.concat(lines, '\n')
io.stdout:write(report, '\n')
local function expect(text)
  H.check(report:find(text, 1, true), ('the health report should contain %q:\n%s'):format(text, report))
end
expect('OK Neovim 0.11')
expect('OK freshpass serve: freshpass ' .. expected_version)
expect('OK enabled')
expect('OK server attached')
expect('OK ledger writable')
H.check(not report:find('ERROR', 1, true), 'the health report has an ERROR:\n' .. report)
H.check(not report:find('WARNING', 1, true), 'the health report has a WARNING:\n' .. report)
H.done()
