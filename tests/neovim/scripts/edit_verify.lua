-- Attach, verify, edit + :write → diagnostic and `unverified`; run the lens → `full` again; receipts and status.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l edit_verify.lua PROJECT
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local project = assert(_G.arg[1], 'usage: edit_verify.lua PROJECT')
local source = vim.fs.joinpath(project, 'src', 'calc.py')
local freshpass = require('freshpass')

vim.lsp.enable('freshpass')
local events = H.record_status_events()
local bufnr, client = H.open(source)
-- Neovim 0.11 has no handler for `workspace/codeLens/refresh`: the plugin advertises the capability and handles it.
H.check(vim.tbl_get(client.capabilities, 'workspace', 'codeLens', 'refreshSupport'), 'codeLens refreshSupport sent')
local refresh_requests = 0
local refresh_handler = client.handlers['workspace/codeLens/refresh']
client.handlers['workspace/codeLens/refresh'] = function(...)
  refresh_requests = refresh_requests + 1
  return refresh_handler(...)
end

-- Nothing ran in this project yet: the lens and the statusline say so.
H.wait_for('an `unverified` lens before any verify', function()
  return H.lens_with(bufnr, 'unverified')
end)
H.check(freshpass.statusline(bufnr) == '⚠ unverified', 'statusline before verify: ' .. freshpass.statusline(bufnr))
H.wait_for('a `▶ Run` lens naming the declared command', function()
  return H.lens_with(bufnr, '▶ Run') and H.lens_with(bufnr, 'pytest')
end)

vim.cmd('Freshpass verify')
H.wait_for('the statusline to show the running verify', function()
  return freshpass.statusline(bufnr) == '⟳ verifying' or freshpass.statusline(bufnr) == '✓ full'
end)
H.wait_for('a `full` lens after :Freshpass verify', function()
  return H.lens_with(bufnr, '✓ full')
end)
H.wait_for('the statusline `✓ full`', function()
  return freshpass.statusline(bufnr) == '✓ full'
end)
H.check(freshpass.statusline_hl(bufnr) == '%#FreshpassFull# ✓ full %*', 'badge: ' .. freshpass.statusline_hl(bufnr))
local badge = vim.api.nvim_get_hl(0, { name = 'FreshpassFull' })
H.check(badge.bg == vim.api.nvim_get_hl(0, { name = 'DiagnosticOk', link = false }).fg, 'the badge takes the OK colour')
H.wait_for('the lens to be drawn as virtual text on line 1', function()
  return H.virtual_text(bufnr, 0):find('✓ full', 1, true)
end)
H.wait_for('a `User FreshpassStatus` event with the passing status', function()
  for _, event in ipairs(events) do
    if event.status and event.status.status == 'passed' and event.status.scope == 'full' then
      return true
    end
  end
end)
H.wait_for('the verify summary in :messages', function()
  return H.messages_contain('freshpass ✓ full')
end)
H.wait_for('the live output of pytest in the output buffer', function()
  return H.any_line(H.buffer_lines('freshpass://output'), 'passed')
end)
H.check(#H.freshpass_diagnostics(source) == 0, 'no freshpass diagnostic expected right after a passing verify')
H.wait_for('the server to ask for a code lens refresh (workspace/codeLens/refresh)', function()
  return refresh_requests > 0
end)

-- Edit and save: the evidence no longer covers the content.
vim.api.nvim_buf_set_lines(bufnr, -1, -1, false, { '', 'def triple(x):', '    return 3 * x' })
vim.cmd.write()
local diagnostic = H.wait_for('a freshpass diagnostic on the saved file', function()
  return H.freshpass_diagnostics(source)[1]
end)
H.check(diagnostic.lnum == 0, 'the freshpass diagnostic sits on line 1, got line ' .. (diagnostic.lnum + 1))
H.check(diagnostic.message:find('pytest', 1, true), 'the diagnostic names the command to run: ' .. diagnostic.message)
H.wait_for('an `unverified` lens after the edit', function()
  return H.lens_with(bufnr, 'unverified')
end)
H.wait_for('the statusline `⚠ unverified` after the edit', function()
  return freshpass.statusline(bufnr) == '⚠ unverified'
end)

-- Run the `▶ Run` lens the way a user does (cursor on line 1, `vim.lsp.codelens.run()`, pick the run lens).
local picked
vim.ui.select = function(items, opts, on_choice)
  for _, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or tostring(item)
    if title:find('▶ Run', 1, true) then
      picked = title
      return on_choice(item)
    end
  end
  on_choice(nil)
end
vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.lsp.codelens.run()
H.wait_for('the `▶ Run` lens to be chosen', function()
  return picked or H.lens_with(bufnr, '✓ full')
end)
H.wait_for('a `full` lens after running the lens', function()
  return H.lens_with(bufnr, '✓ full')
end)
H.wait_for('the freshpass diagnostic to clear after the fresh pass', function()
  return #H.freshpass_diagnostics(source) == 0
end)
H.wait_for('the statusline `✓ full` after running the lens', function()
  return freshpass.statusline(bufnr) == '✓ full'
end)

-- Receipts: both runs, newest first, the newest marked as the current status.
vim.cmd('Freshpass log')
local receipts = H.wait_for('the receipts buffer with two passing runs', function()
  local lines = H.buffer_lines('freshpass://receipts')
  local passed = 0
  for _, line in ipairs(lines) do
    if line:find('✓ passed', 1, true) and line:find('pytest', 1, true) then
      passed = passed + 1
    end
  end
  return passed >= 2 and lines
end)
H.check(receipts[3]:find('← current status', 1, true), 'the newest receipt is the current status: ' .. receipts[3])

-- :Freshpass status from the receipts buffer still knows its project.
vim.cmd('Freshpass status')
vim.cmd('Freshpass output')
H.check(vim.api.nvim_buf_get_name(0) == 'freshpass://output', ':Freshpass output shows the output buffer')
H.check(H.any_line(H.buffer_lines('freshpass://output'), 'freshpass ✓ full — pytest'), 'the run summaries are in it')
H.wait_for(':Freshpass status to print the root and the evidence', function()
  local messages = vim.fn.execute('messages')
  return messages:find('freshpass ✓ full  ' .. vim.uv.fs_realpath(project), 1, true)
    and messages:find('evidence: pytest', 1, true)
end)
H.done()
