--- The live output of verify runs (`freshpass/output` notifications), collected in one scratch buffer that
--- `:Freshpass output` shows. Bounded, so a chatty test suite cannot grow it without end.
local M = {}

M.buffer_name = 'freshpass://output'

--- Lines kept; the oldest go first.
M.max_lines = 20000

local bufnr_cache --- @type integer|nil
--- runId whose last chunk did not end with a newline: the next chunk of the same run continues that line
local open_run --- @type any
local last_header_run --- @type any

--- The output buffer, created on first use.
--- @return integer
function M.buffer()
  if bufnr_cache and vim.api.nvim_buf_is_valid(bufnr_cache) then
    return bufnr_cache
  end
  local bufnr = vim.fn.bufnr(M.buffer_name)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, M.buffer_name)
  end
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'hide'
  vim.bo[bufnr].swapfile = false
  vim.bo[bufnr].filetype = 'freshpass-output'
  vim.bo[bufnr].modifiable = false
  bufnr_cache = bufnr
  return bufnr
end

--- Terminal colour and cursor sequences make no sense in a buffer.
--- @param text string
--- @return string
local function plain(text)
  return (text:gsub('\27%[[%d;?]*[%a]', ''):gsub('\r\n', '\n'):gsub('\r', '\n'))
end

--- @param bufnr integer
--- @param fn fun()
local function modify(bufnr, fn)
  vim.bo[bufnr].modifiable = true
  local ok, err = pcall(fn)
  vim.bo[bufnr].modifiable = false
  if not ok then
    error(err)
  end
end

--- Keep windows that show the buffer scrolled to the end, like a terminal.
--- @param bufnr integer
local function follow(bufnr)
  local last = vim.api.nvim_buf_line_count(bufnr)
  for _, win in ipairs(vim.fn.win_findbuf(bufnr)) do
    vim.api.nvim_win_set_cursor(win, { last, 0 })
  end
end

--- Append `text` (any chunk: partial lines are continued by the next chunk of the same run).
--- @param text string
--- @param run_id any
--- @param header? string shown once before the first output of a run
function M.append(text, run_id, header)
  local bufnr = M.buffer()
  local pieces = vim.split(plain(text), '\n', { plain = true })
  modify(bufnr, function()
    local count = vim.api.nvim_buf_line_count(bufnr)
    local empty = count == 1 and vim.api.nvim_buf_get_lines(bufnr, 0, 1, false)[1] == ''
    if header and last_header_run ~= run_id then
      -- A new run starts on a new line, even if the previous run ended without a newline.
      open_run = nil
      vim.api.nvim_buf_set_lines(bufnr, empty and 0 or count, empty and 1 or count, false, { header })
      last_header_run = run_id
      count = vim.api.nvim_buf_line_count(bufnr)
      empty = false
    end
    -- The lines to replace: the open last line of this run (continued), the placeholder line of an empty buffer,
    -- or none (append).
    local first, last = count, count
    if open_run ~= nil and open_run == run_id and not empty then
      pieces[1] = vim.api.nvim_buf_get_lines(bufnr, count - 1, count, false)[1] .. pieces[1]
      first = count - 1
    elseif empty then
      first, last = 0, 1
    end
    local ends_open = pieces[#pieces] ~= ''
    if not ends_open then
      pieces[#pieces] = nil
    end
    if #pieces > 0 then
      vim.api.nvim_buf_set_lines(bufnr, first, last, false, pieces)
    end
    open_run = ends_open and run_id or nil
    local excess = vim.api.nvim_buf_line_count(bufnr) - M.max_lines
    if excess > 0 then
      vim.api.nvim_buf_set_lines(bufnr, 0, excess, false, {})
    end
  end)
  follow(bufnr)
end

--- Append whole lines (a run's summary).
--- @param lines string[]
function M.append_lines(lines)
  M.append(table.concat(lines, '\n') .. '\n', {})
end

--- Show the output in a split (or focus the window that already shows it).
function M.open()
  local bufnr = M.buffer()
  local wins = vim.fn.win_findbuf(bufnr)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    vim.cmd('botright sbuffer ' .. bufnr)
    vim.keymap.set('n', 'q', '<Cmd>close<CR>', { buffer = bufnr, desc = 'close the freshpass output' })
  end
  follow(bufnr)
end

--- The buffer's lines (for tests and scripts).
--- @return string[]
function M.lines()
  return vim.api.nvim_buf_get_lines(M.buffer(), 0, -1, false)
end

return M
