--- freshpass for Neovim: receipts for "the tests pass", inline.
---
--- Nothing here is mandatory: with the plugin on 'runtimepath', `vim.lsp.enable('freshpass')` is the whole setup.
--- `setup()` only overrides the LSP config (`lsp/freshpass.lua`) and the plugin's own options.
local clients = require('freshpass.client')
local codelens = require('freshpass.codelens')
local config = require('freshpass.config')
local output = require('freshpass.output')
local state = require('freshpass.state')
local util = require('freshpass.util')

local M = {}

local function notify(message, level)
  vim.notify(message, level or vim.log.levels.INFO, { title = 'freshpass' })
end

--- A one-line report that arrives asynchronously (a finished verify): cut to the message area, because a longer
--- message interrupts whatever the user is doing with a hit-enter prompt. The whole line is in the output buffer.
--- @param message string
--- @param level integer
local function report(message, level)
  local width = math.max(20, vim.v.echospace)
  if vim.fn.strdisplaywidth(message) > width then
    message = vim.fn.strcharpart(message, 0, width - 1) .. '…'
  end
  local hl = level >= vim.log.levels.ERROR and 'ErrorMsg' or level >= vim.log.levels.WARN and 'WarningMsg' or 'Normal'
  vim.api.nvim_echo({ { message, hl } }, true, {})
end

--- Override the LSP config and the plugin options, and enable the server.
---
--- `opts.settings` is the `freshpass` settings object (`{ diagnostics = { severity = 'hint' } }`); every other
--- key except the plugin options below is an |vim.lsp.Config| field (`cmd`, `root_markers`, `init_options`…).
--- @param opts? {settings?: table, codelens?: boolean, open_output?: boolean, enable?: boolean}|vim.lsp.Config
function M.setup(opts)
  opts = vim.deepcopy(opts or {})
  for _, option in ipairs({ 'codelens', 'open_output' }) do
    if opts[option] ~= nil then
      config.options[option] = opts[option]
      opts[option] = nil
    end
  end
  local enable = opts.enable ~= false
  opts.enable = nil
  -- `settings` is the freshpass object itself; accept the LSP form `{ freshpass = {…} }` too.
  if opts.settings and not (vim.tbl_count(opts.settings) == 1 and type(opts.settings.freshpass) == 'table') then
    opts.settings = { freshpass = opts.settings }
  end
  if next(opts) then
    vim.lsp.config(config.name, opts)
    -- Running servers pick up new settings at once (the server re-reads on didChangeConfiguration).
    local settings = vim.lsp.config[config.name].settings
    for _, client in ipairs(clients.clients()) do
      client.settings = vim.deepcopy(settings)
      client:notify('workspace/didChangeConfiguration', { settings = client.settings })
    end
  end
  if enable then
    vim.lsp.enable(config.name)
  end
end

--- The cached status of the root holding `bufnr` (design §4.5 JSON), or nil when the server has not said yet.
--- @param bufnr? integer
--- @return table|nil
function M.status(bufnr)
  bufnr = bufnr and bufnr ~= 0 and bufnr or vim.api.nvim_get_current_buf()
  local client = clients.attached(bufnr)
  if not client then
    return nil
  end
  return (state.status_for_path(client.id, util.buf_path(bufnr)))
end

--- Statusline component: `✓ full`, `◐ targeted`, `⚠ unverified`, `✗ failed`, `⟳ verifying`, or '' for buffers
--- without a freshpass server. Cheap enough for every redraw: it only reads the cache the server's
--- `freshpass/statusChanged` notifications fill.
---
--- ```lua
--- vim.o.statusline = "%f %= %{v:lua.require'freshpass'.statusline()} "
--- ```
--- @param bufnr? integer
--- @return string label, string highlight group
local function statusline_label(bufnr)
  bufnr = bufnr and bufnr ~= 0 and bufnr or vim.api.nvim_get_current_buf()
  local client = clients.attached(bufnr)
  if not client then
    return '', ''
  end
  local path = util.buf_path(bufnr)
  if state.is_running(client.id, path) then
    return '⟳ verifying', 'FreshpassVerifying'
  end
  local status = state.status_for_path(client.id, path)
  return util.label(status) or '', util.label_group(status)
end

--- @param bufnr? integer
--- @return string
function M.statusline(bufnr)
  return (statusline_label(bufnr))
end

--- The same label as a coloured badge (`FreshpassFull`, `FreshpassTargeted`, `FreshpassUnverified`, `FreshpassFailed`,
--- `FreshpassVerifying`), for statuslines that evaluate `%#Group#` items:
---
--- ```lua
--- vim.o.statusline = "%f %= %{%v:lua.require'freshpass'.statusline_hl()%} "
--- ```
--- @param bufnr? integer
--- @return string
function M.statusline_hl(bufnr)
  local label, group = statusline_label(bufnr)
  if label == '' then
    return ''
  end
  return ('%%#%s# %s %%*'):format(require('freshpass.highlights').use(group), label)
end

--- Ask the server for the status of the root holding `bufnr` and cache it.
--- @param bufnr integer
--- @param on_result? fun(status: table|nil, err: string|nil)
function M.request_status(bufnr, on_result)
  local target, problem = clients.target(bufnr)
  if not target then
    if on_result then
      on_result(nil, problem)
    end
    return
  end
  local params = target.uri and { uri = target.uri } or clients.where(target)
  target.client:request('freshpass/status', params, function(err, status)
    if err or type(status) ~= 'table' then
      if on_result then
        on_result(nil, ('freshpass/status failed: %s'):format(err and clients.error_text(err) or 'no result'))
      end
      return
    end
    state.set_status(target.client.id, status)
    if on_result then
      on_result(status, nil)
    end
  end, target.uri and bufnr or nil)
end

--- Run the project's verify command through the server (`workspace/executeCommand` `freshpass.verify`).
--- @param opts? {bufnr?: integer, targeted?: boolean, kind?: string, command?: string, args?: string[]}
function M.verify(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local target, problem = clients.target(bufnr)
  if not target then
    notify(problem --[[@as string]], vim.log.levels.ERROR)
    return
  end
  local argument
  if opts.targeted then
    if not target.uri then
      notify('freshpass: a targeted check needs a file of the project; run it from that file', vim.log.levels.ERROR)
      return
    end
    argument = { uri = target.uri, targeted = true }
  else
    argument = clients.where(target)
  end
  if opts.command then
    argument.command = opts.command
  elseif opts.kind then
    argument.kind = opts.kind
  end
  if opts.args and #opts.args > 0 then
    argument.args = opts.args
  end
  target.client:exec_cmd(
    { title = 'freshpass verify', command = 'freshpass.verify', arguments = { argument } },
    { bufnr = bufnr }
  )
end

--- Client-side handler of the `freshpass.verify` command, for `:Freshpass verify` and for code lenses alike: sends
--- it to the server, tracks it for the statusline and reports the receipt when it finishes.
--- @param command lsp.Command
--- @param ctx {bufnr: integer, client_id: integer, chosen?: boolean}
function M._run_verify(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  if not clients.offers(client, command.command) then
    notify(
      ('freshpass: this server does not offer %s; update freshpass (see :checkhealth freshpass)'):format(
        command.command
      ),
      vim.log.levels.ERROR
    )
    return
  end
  local argument = type(command.arguments) == 'table' and command.arguments[1] or nil
  if not ctx.chosen then -- ask once which command runs the full tests when detection is unsure (choose.lua)
    require('freshpass.choose').before_run(client, argument, ctx.bufnr, function(chosen)
      local arguments = chosen and { chosen } or command.arguments
      local again = { title = command.title, command = command.command, arguments = arguments }
      M._run_verify(again, { bufnr = ctx.bufnr, client_id = ctx.client_id, chosen = true })
    end)
    return
  end
  local root
  if type(argument) == 'table' and type(argument.root) == 'string' then
    root = util.realpath(argument.root)
  elseif type(argument) == 'table' and type(argument.uri) == 'string' then
    root = select(2, state.status_for_path(client.id, util.realpath(vim.uri_to_fname(argument.uri))))
  end
  state.track_running(client.id, root, 1)
  -- Transient and after the command line is gone: a message printed while `:Freshpass verify` is still on the
  -- command line would scroll it and ask for Enter. The statusline shows `⟳ verifying` meanwhile.
  vim.schedule(function()
    vim.api.nvim_echo({ { 'freshpass: verifying… (:Freshpass output shows it live)' } }, false, {})
  end)
  if config.options.open_output then
    output.open()
  end
  local params = { command = command.command, arguments = command.arguments }
  client:request('workspace/executeCommand', params, function(err, result)
    state.track_running(client.id, root, -1)
    if err then
      local message = 'freshpass: verify failed to run: ' .. clients.error_text(err)
      output.append_lines({ message })
      notify(message, vim.log.levels.ERROR)
      return
    end
    result = type(result) == 'table' and result or {}
    if type(result.status) == 'table' then
      state.set_status(client.id, result.status)
    end
    local message, level = util.verify_summary(result.evidence, result.status, result.message)
    output.append_lines({ message })
    report(message, level)
    codelens.refresh_visible(client)
  end, ctx.bufnr)
end

--- Cancel the verifies running for the project of `bufnr` (`freshpass.cancel`).
--- @param bufnr? integer
function M.cancel(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local target, problem = clients.target(bufnr)
  if not target then
    notify(problem --[[@as string]], vim.log.levels.ERROR)
    return
  end
  -- `freshpass.cancel` takes `{root?}`: without a known root it cancels every verify of this server.
  local where = clients.where(target)
  local argument = where.root and { root = where.root } or vim.empty_dict()
  target.client:exec_cmd(
    { title = 'freshpass cancel', command = 'freshpass.cancel', arguments = { argument } },
    { bufnr = bufnr },
    function(err)
      if err then
        notify('freshpass: cancel failed: ' .. clients.error_text(err), vim.log.levels.ERROR)
      else
        notify('freshpass: cancelled the running verify')
      end
    end
  )
end

--- Show the status of the project of `bufnr` (`freshpass/status`), also kept in |:messages|.
--- @param bufnr? integer
function M.show_status(bufnr)
  M.request_status(bufnr or vim.api.nvim_get_current_buf(), function(status, problem)
    if not status then
      notify(problem --[[@as string]], vim.log.levels.ERROR)
      return
    end
    local chunks = {}
    for index, line in ipairs(util.status_lines(status)) do
      chunks[#chunks + 1] = { line .. '\n', index == 1 and util.label_hl(status) or 'Normal' }
    end
    chunks[#chunks][1] = chunks[#chunks][1]:gsub('\n$', '')
    vim.api.nvim_echo(chunks, true, {})
  end)
end

M.log_buffer_name = 'freshpass://receipts'

--- Fill the receipts buffer and show it.
--- @param client vim.lsp.Client
--- @param result {root: string, receipts: table[]}
local function show_receipts(client, result)
  local root = type(result.root) == 'string' and result.root or '?'
  local receipts = type(result.receipts) == 'table' and result.receipts or {}
  local status = state.statuses[client.id] and state.statuses[client.id][util.realpath(root)]
  local current = status and type(status.evidence) == 'table' and status.evidence.id or nil
  local lines = { ('freshpass receipts for %s, newest first (q closes)'):format(root), '' }
  for _, evidence in ipairs(receipts) do
    if type(evidence) == 'table' then
      lines[#lines + 1] = util.receipt_line(evidence, current)
    end
  end
  if #receipts == 0 then
    lines[#lines + 1] = 'No receipts yet: run :Freshpass verify, or any verify command through `freshpass run --`.'
  end
  local bufnr = vim.fn.bufnr(M.log_buffer_name)
  if bufnr == -1 then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, M.log_buffer_name)
    vim.bo[bufnr].buftype = 'nofile'
    vim.bo[bufnr].bufhidden = 'hide'
    vim.bo[bufnr].swapfile = false
    vim.bo[bufnr].filetype = 'freshpass-receipts'
    vim.keymap.set('n', 'q', '<Cmd>close<CR>', { buffer = bufnr, desc = 'close the freshpass receipts' })
  end
  vim.b[bufnr].freshpass_target = { client_id = client.id, root = type(result.root) == 'string' and result.root or nil }
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  local wins = vim.fn.win_findbuf(bufnr)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    vim.cmd('botright sbuffer ' .. bufnr)
  end
end

--- Show the receipts of the project of `bufnr`, newest first (`freshpass.receipts`).
--- @param opts? {bufnr?: integer, limit?: integer}
function M.show_log(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local target, problem = clients.target(bufnr)
  if not target then
    notify(problem --[[@as string]], vim.log.levels.ERROR)
    return
  end
  local argument = clients.where(target)
  if argument.root == nil and argument.uri == nil then
    argument = {}
  end
  argument.limit = opts.limit or 50
  target.client:exec_cmd(
    { title = 'freshpass receipts', command = 'freshpass.receipts', arguments = { argument } },
    { bufnr = bufnr }
  )
end

--- Client-side handler of the `freshpass.receipts` command (from `:Freshpass log` or a code action).
--- @param command lsp.Command
--- @param ctx {bufnr: integer, client_id: integer}
function M._run_receipts(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  if not clients.offers(client, command.command) then
    notify('freshpass: this server does not offer freshpass.receipts; update freshpass', vim.log.levels.ERROR)
    return
  end
  local params = { command = command.command, arguments = command.arguments }
  client:request('workspace/executeCommand', params, function(err, result)
    if err or type(result) ~= 'table' then
      notify('freshpass: receipts failed: ' .. (err and clients.error_text(err) or 'no result'), vim.log.levels.ERROR)
      return
    end
    show_receipts(client, result)
  end, ctx.bufnr)
end

--- Show the live output of verify runs.
function M.show_output()
  output.open()
end

--- Stop the freshpass servers and start them again for the buffers they served (picks up config changes).
--- @param on_done? fun(client_ids: integer[]) called once the new servers are starting
function M.restart(on_done)
  local running = clients.clients()
  local buffers = {}
  for _, client in ipairs(running) do
    for bufnr in pairs(client.attached_buffers) do
      buffers[bufnr] = client.config
    end
    client:stop()
  end
  local deadline = vim.uv.now() + 3000
  local timer = assert(vim.uv.new_timer())
  -- A stopping client exits asynchronously; there is no event for "gone", so check on a short timer.
  timer:start(0, 50, function()
    vim.schedule(function()
      if timer:is_closing() then
        return
      end
      local alive = vim.tbl_filter(function(client)
        return vim.lsp.get_client_by_id(client.id) ~= nil
      end, running)
      if #alive > 0 and vim.uv.now() < deadline then
        return
      end
      timer:stop()
      timer:close()
      for _, client in ipairs(alive) do
        client:stop(true)
      end
      local started = {}
      if vim.lsp.is_enabled(config.name) then
        -- Re-runs the FileType autocmd of vim.lsp.enable() for every buffer, with the current config.
        vim.lsp.enable(config.name)
      end
      for bufnr, client_config in pairs(buffers) do
        if vim.api.nvim_buf_is_loaded(bufnr) and not clients.attached(bufnr) then
          vim.lsp.start(vim.deepcopy(client_config), { bufnr = bufnr })
        end
      end
      for _, client in ipairs(clients.clients()) do
        started[#started + 1] = client.id
      end
      notify(('freshpass: restarted (%d server%s)'):format(#started, #started == 1 and '' or 's'))
      if on_done then
        on_done(started)
      end
    end)
  end)
end

return M
