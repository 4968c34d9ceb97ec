-- A project whose test check rests on CI alone: the first `▶ Run` asks with vim.ui.select which command runs the
-- full tests; the pick writes .freshpass.toml and the run runs the chosen command; the next run does not ask.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l choose.lua PROJECT
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local project = assert(_G.arg[1], 'usage: choose.lua PROJECT')
local chosen = 'python -m unittest discover -s tests'
local config = vim.fs.joinpath(project, '.freshpass.toml')

vim.lsp.enable('freshpass')
local bufnr = H.open(vim.fs.joinpath(project, 'calc.py'))
H.wait_for('a `▶ Run` lens naming the CI step', function()
  return H.lens_with(bufnr, '▶ Run python -m pytest -q tests')
end)

local questions = {}
vim.ui.select = function(items, opts, on_choice)
  for _, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or tostring(item)
    if opts.prompt == "Which command runs this project's full tests?" then
      if title:find(chosen, 1, true) then
        questions[#questions + 1] = vim.tbl_map(opts.format_item, items)
        return on_choice(item)
      end
    elseif title:find('▶ Run', 1, true) then
      return on_choice(item)
    end
  end
  on_choice(nil)
end

vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.lsp.codelens.run()
H.wait_for('.freshpass.toml naming the chosen command', function()
  local file = io.open(config)
  local text = file and file:read('*a') or ''
  if file then
    file:close()
  end
  return text:find('command = "' .. chosen .. '"', 1, true) ~= nil
end)
H.check(#questions == 1, 'asked once, got ' .. #questions)
local listed = table.concat(questions[1], '\n')
H.check(listed:find('python -m pytest -q tests', 1, true) ~= nil, 'the CI pytest step is listed: ' .. listed)
H.check(listed:find('a CI step · .github/workflows/ci.yml#jobs.unittest.steps[0]', 1, true) ~= nil, listed)
H.check(listed:find('← runs now', 1, true) ~= nil, 'the current check is marked: ' .. listed)
H.wait_for('a `✓ full` lens of the chosen command', function()
  return H.lens_with(bufnr, '✓ full') and H.lens_with(bufnr, chosen)
end)
H.wait_for('the statusline `✓ full`', function()
  return require('freshpass').statusline(bufnr) == '✓ full'
end)
local log = vim.system({ 'freshpass', 'log', '--json', project }, { text = true }):wait()
local receipts = vim.json.decode(log.stdout)
receipts = receipts.receipts or receipts
H.check(#receipts == 1 and receipts[1].command == chosen, 'the chosen command ran: ' .. log.stdout)

-- Settled: `:Freshpass verify` runs the chosen command and asks nothing.
vim.cmd('Freshpass verify')
H.wait_for('a second receipt of the chosen command', function()
  local again = vim.json.decode(vim.system({ 'freshpass', 'log', '--json', project }, { text = true }):wait().stdout)
  again = again.receipts or again
  return #again == 2 and again[1].command == chosen
end)
H.check(#questions == 1, 'not asked again, got ' .. #questions)
H.done()
