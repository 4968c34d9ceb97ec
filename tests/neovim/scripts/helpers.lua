-- Shared by the headless Neovim scripts: waiting on conditions, reading lenses and diagnostics, failing loudly.
-- Every wait is `vim.wait(timeout, predicate)`; a timeout ends Neovim with exit 1 and a dump of what it saw.
local H = {}

H.timeout = tonumber(vim.env.FRESHPASS_NVIM_TIMEOUT_MS or '') or 45000

--- Everything that helps to understand a failure: clients, lenses, diagnostics, cached statuses, messages, the
--- output buffer and the end of the LSP log (the server's stderr lands there).
function H.context()
  local lines = {}
  local function add(title, value)
    lines[#lines + 1] = ('--- %s\n%s'):format(title, type(value) == 'string' and value or vim.inspect(value))
  end
  local clients = {}
  for _, client in ipairs(vim.lsp.get_clients()) do
    clients[#clients + 1] = {
      id = client.id,
      name = client.name,
      root_dir = client.root_dir,
      stopped = client:is_stopped(),
      buffers = vim.tbl_keys(client.attached_buffers),
    }
  end
  add('clients', clients)
  local lenses = {}
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      local titles = H.lens_titles(bufnr)
      if #titles > 0 then
        lenses[vim.api.nvim_buf_get_name(bufnr)] = titles
      end
    end
  end
  add('code lenses', lenses)
  local diagnostics = {}
  for _, diagnostic in ipairs(vim.diagnostic.get()) do
    diagnostics[#diagnostics + 1] = ('%s:%d [%s] %s'):format(
      vim.api.nvim_buf_get_name(diagnostic.bufnr),
      diagnostic.lnum,
      diagnostic.source or '?',
      diagnostic.message
    )
  end
  add('diagnostics', diagnostics)
  local ok, state = pcall(require, 'freshpass.state')
  if ok then
    add('freshpass statuses', state.statuses)
    add('freshpass running', state.running)
  end
  add('messages', vim.fn.execute('messages'))
  local output_buf = vim.fn.bufnr('freshpass://output')
  if output_buf ~= -1 then
    add('freshpass output (tail)', table.concat(vim.api.nvim_buf_get_lines(output_buf, -40, -1, false), '\n'))
  end
  local log = io.open(vim.lsp.log.get_filename(), 'r')
  if log then
    local text = log:read('*a')
    log:close()
    add('lsp.log (tail)', text:sub(-6000))
  end
  return table.concat(lines, '\n')
end

--- Stop every client and wait until they are gone; `force` sends SIGTERM at once.
--- @param force boolean
--- @return boolean gone
local function stop_clients(force)
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop(force)
  end
  return vim.wait(2000, function()
    return #vim.lsp.get_clients() == 0
  end, 20)
end

--- Functions `H.fail` runs before exiting (e.g. stop a child editor), so nothing outlives a failed test.
--- @type fun()[]
H.cleanups = {}

--- @param message string
function H.fail(message)
  io.stderr:write(('FAIL: %s\n%s\n'):format(message, H.context()))
  io.stderr:flush()
  for _, cleanup in ipairs(H.cleanups) do
    pcall(cleanup)
  end
  -- A server must not outlive a failed test.
  stop_clients(true)
  os.exit(1)
end

--- @param condition any
--- @param message string
function H.check(condition, message)
  if not condition then
    H.fail(message)
  end
end

--- Wait until `predicate()` is truthy; fail with `description` after the timeout.
--- @param description string what we are waiting for, phrased as the expectation
--- @param predicate fun(): any
--- @param timeout_ms? integer
--- @return any the predicate's last value
function H.wait_for(description, predicate, timeout_ms)
  local value
  local ok = vim.wait(timeout_ms or H.timeout, function()
    value = predicate()
    return value
  end, 20)
  if not ok then
    H.fail('timed out waiting for ' .. description)
  end
  return value
end

--- The freshpass client attached to `bufnr`, once the server answered `initialize`.
--- @param bufnr integer
--- @return vim.lsp.Client
function H.wait_client(bufnr)
  return H.wait_for('the freshpass server to attach to ' .. vim.api.nvim_buf_get_name(bufnr), function()
    local client = vim.lsp.get_clients({ name = 'freshpass', bufnr = bufnr })[1]
    return client and client.initialized and client
  end)
end

--- Titles of the code lenses the buffer shows (all clients).
--- @param bufnr integer
--- @return string[]
function H.lens_titles(bufnr)
  local titles = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    if lens.command and lens.command.title then
      titles[#titles + 1] = lens.command.title
    end
  end
  return titles
end

--- The first lens title of `bufnr` that contains `text` (plain match), or nil.
--- @param bufnr integer
--- @param text string
--- @return string|nil
function H.lens_with(bufnr, text)
  for _, title in ipairs(H.lens_titles(bufnr)) do
    if title:find(text, 1, true) then
      return title
    end
  end
  return nil
end

--- Lenses are rendered as virtual text: the text Neovim actually shows on a line (0-based) of `bufnr`.
--- @param bufnr integer
--- @param line integer
--- @return string
function H.virtual_text(bufnr, line)
  local texts = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, -1, { line, 0 }, { line, -1 }, { details = true })) do
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      texts[#texts + 1] = chunk[1]
    end
  end
  return table.concat(texts)
end

--- Diagnostics from the freshpass server for the file at `path` (open or not: the server publishes for changed
--- files, and Neovim keeps those on an unloaded buffer).
--- @param path string
--- @return vim.Diagnostic[]
function H.freshpass_diagnostics(path)
  local wanted = vim.uv.fs_realpath(path) or path
  local found = {}
  for _, diagnostic in ipairs(vim.diagnostic.get()) do
    local name = vim.api.nvim_buf_get_name(diagnostic.bufnr)
    if diagnostic.source == 'freshpass' and (vim.uv.fs_realpath(name) or name) == wanted then
      found[#found + 1] = diagnostic
    end
  end
  return found
end

--- Whether `:messages` contains `text`.
--- @param text string
--- @return boolean
function H.messages_contain(text)
  return vim.fn.execute('messages'):find(text, 1, true) ~= nil
end

--- Lines of a buffer found by name, or {}.
--- @param name string
--- @return string[]
function H.buffer_lines(name)
  local bufnr = vim.fn.bufnr(name)
  if bufnr == -1 then
    return {}
  end
  return vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

--- Whether any line of `lines` contains `text`.
--- @param lines string[]
--- @param text string
--- @return boolean
function H.any_line(lines, text)
  for _, line in ipairs(lines) do
    if line:find(text, 1, true) then
      return true
    end
  end
  return false
end

--- Open `path`, wait for the server and for its first status, and return the buffer and client.
--- @param path string
--- @return integer bufnr, vim.lsp.Client client
function H.open(path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local client = H.wait_client(bufnr)
  H.wait_for('the status of ' .. path .. ' (freshpass/status answered)', function()
    return require('freshpass').status(bufnr) ~= nil
  end)
  return bufnr, client
end

--- Collect `User FreshpassStatus` payloads.
--- @return table[]
function H.record_status_events()
  local events = {}
  vim.api.nvim_create_autocmd('User', {
    pattern = 'FreshpassStatus',
    callback = function(args)
      events[#events + 1] = args.data
    end,
  })
  return events
end

--- Stop the servers (politely, then with SIGTERM so that none outlives the test) and exit 0.
function H.done()
  if not stop_clients(false) then
    stop_clients(true)
  end
  io.stdout:write('ok\n')
  io.stdout:flush()
  os.exit(0)
end

return H
