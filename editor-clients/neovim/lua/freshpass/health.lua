--- `:checkhealth freshpass`
local M = {}

local health = vim.health

--- The command line that prints the version of the configured server: its `cmd` up to (not including) `serve`.
--- @param cmd string[]
--- @return string[]
local function version_command(cmd)
  local prefix = {}
  for _, word in ipairs(cmd) do
    if word == 'serve' then
      break
    end
    prefix[#prefix + 1] = word
  end
  prefix[#prefix + 1] = '--version'
  return prefix
end

--- Where the server keeps its receipts (design §4.1): `$FRESHPASS_LEDGER`, else the user state directory.
--- @return string
function M.ledger_path()
  if vim.env.FRESHPASS_LEDGER and vim.env.FRESHPASS_LEDGER ~= '' then
    return vim.fs.normalize(vim.env.FRESHPASS_LEDGER)
  end
  local state_home = vim.env.XDG_STATE_HOME
  -- As the server does (XDG): a relative path in the variable is invalid and ignored.
  if not state_home or not vim.startswith(state_home, '/') then
    state_home = vim.fs.joinpath(vim.uv.os_homedir() or '~', '.local', 'state')
  end
  return vim.fs.joinpath(vim.fs.normalize(state_home), 'freshpass', 'ledger.db')
end

--- Whether the ledger can be written: the file itself when it exists, else the nearest existing directory above it
--- (the server creates the missing ones).
--- @param path string
--- @return boolean ok, string detail
function M.ledger_writable(path)
  if vim.uv.fs_stat(path) then
    if vim.uv.fs_access(path, 'W') then
      return true, path
    end
    return false, path .. ' exists but is not writable by you'
  end
  local directory = vim.fs.dirname(path)
  while directory and not vim.uv.fs_stat(directory) do
    local parent = vim.fs.dirname(directory)
    if parent == directory then
      break
    end
    directory = parent
  end
  if directory and vim.uv.fs_access(directory, 'W') then
    return true, ('%s (will be created in %s)'):format(path, directory)
  end
  return false, ('%s cannot be created: %s is not writable'):format(path, directory or '?')
end

function M.check()
  health.start('freshpass: Neovim')
  local version = tostring(vim.version())
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. version)
  else
    health.error('Neovim ' .. version .. ' is too old', { 'freshpass needs Neovim 0.11 or newer (vim.lsp.config).' })
    return
  end

  health.start('freshpass: language server')
  local config = vim.lsp.config.freshpass
  if not config then
    health.error('no `freshpass` LSP config', { 'Put the plugin on your runtimepath: it provides lsp/freshpass.lua.' })
    return
  end
  if vim.lsp.is_enabled('freshpass') then
    health.ok('enabled (vim.lsp.enable("freshpass"))')
  else
    health.warn('not enabled', {
      'Add vim.lsp.enable("freshpass") to your config, or call require("freshpass").setup().',
    })
  end

  local cmd = config.cmd
  if type(cmd) ~= 'table' then
    health.info('cmd is a function: cannot check the executable')
  elseif vim.fn.executable(cmd[1]) == 0 then
    health.error(('`%s` is not executable or not on PATH'):format(tostring(cmd[1])), {
      'Install freshpass (pipx install freshpass, or pip install -e . in its repository),',
      'or point the config at it: vim.lsp.config("freshpass", { cmd = { "/path/to/freshpass", "serve" } })',
    })
  else
    local command = version_command(cmd)
    local ok, result = pcall(function()
      return vim.system(command, { text = true }):wait(10000)
    end)
    local printed = ok and vim.trim((result.stdout or '') .. (result.stderr or '')) or ''
    if ok and result.code == 0 and printed ~= '' then
      health.ok(('%s: %s (%s)'):format(table.concat(cmd, ' '), printed, vim.fn.exepath(cmd[1])))
    else
      health.error(('`%s` failed'):format(table.concat(command, ' ')), {
        ok and ('exit %s: %s'):format(result.code, printed) or tostring(result),
        'Reinstall freshpass or fix `cmd` in vim.lsp.config("freshpass", …).',
      })
    end
  end

  local running = vim.lsp.get_clients({ name = 'freshpass' })
  if #running == 0 then
    health.warn('no freshpass server is running', {
      'It starts when you open a file inside a project (a git repository or a directory with a manifest).',
      'If it does not, read the LSP log: :lua vim.cmd.tabnew(vim.lsp.log.get_filename())',
    })
  end
  for _, client in ipairs(running) do
    local buffers = vim.tbl_keys(client.attached_buffers)
    table.sort(buffers)
    local server = client.server_info and client.server_info.name or 'freshpass'
    if client.server_info and client.server_info.version then
      server = server .. ' ' .. client.server_info.version
    end
    health.ok(
      ('server attached: client %d (%s), root %s, %d buffer%s'):format(
        client.id,
        server,
        client.root_dir or '(none)',
        #buffers,
        #buffers == 1 and '' or 's'
      )
    )
    local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
    local commands = type(provider) == 'table' and provider.commands or {}
    local missing = vim.tbl_filter(function(name)
      return not vim.list_contains(commands, name)
    end, { 'freshpass.verify', 'freshpass.cancel', 'freshpass.receipts' })
    if #missing > 0 then
      health.warn('the server does not offer ' .. table.concat(missing, ', '), { 'Update freshpass.' })
    end
  end

  health.start('freshpass: ledger')
  local path = M.ledger_path()
  local writable, detail = M.ledger_writable(path)
  if writable then
    health.ok('ledger writable: ' .. detail)
  else
    health.error('ledger not writable: ' .. detail, { 'Set $FRESHPASS_LEDGER to a writable file path.' })
  end
end

return M
