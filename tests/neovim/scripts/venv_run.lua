-- A project whose pytest is only in its `.venv`, and a Neovim whose PATH does not have it: `▶ Run` ends `✓ full`,
-- and the output buffer says which directory was put first on PATH.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l venv_run.lua PROJECT
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local project = assert(_G.arg[1], 'usage: venv_run.lua PROJECT')
local source = vim.fs.joinpath(project, 'app.py')

H.check(vim.fn.executable('pytest') == 0, 'pytest must not be on this Neovim PATH: ' .. vim.env.PATH)
vim.lsp.enable('freshpass')
local bufnr = H.open(source)
H.wait_for('a `▶ Run` lens naming pytest', function()
  return H.lens_with(bufnr, '▶ Run') and H.lens_with(bufnr, 'pytest')
end)

-- Run the lens the way a user does: cursor on line 1, `vim.lsp.codelens.run()`, pick the run lens.
vim.ui.select = function(items, opts, on_choice)
  for _, item in ipairs(items) do
    local title = opts.format_item and opts.format_item(item) or tostring(item)
    if title:find('▶ Run', 1, true) then
      return on_choice(item)
    end
  end
  on_choice(nil)
end
vim.api.nvim_win_set_cursor(0, { 1, 0 })
vim.lsp.codelens.run()
H.wait_for('a `✓ full` lens after running the lens', function()
  return H.lens_with(bufnr, '✓ full')
end)
H.wait_for('the statusline `✓ full`', function()
  return require('freshpass').statusline(bufnr) == '✓ full'
end)
local venv_bin = vim.fs.joinpath(vim.uv.fs_realpath(project), '.venv', 'bin')
H.wait_for('the output buffer to say that ' .. venv_bin .. ' was put first on PATH', function()
  return H.any_line(H.buffer_lines('freshpass://output'), venv_bin)
end)
H.done()
