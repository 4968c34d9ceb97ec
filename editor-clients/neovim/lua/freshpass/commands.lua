--- `:Freshpass {subcommand}`: verify, choose, status, log, output, cancel, restart.
local M = {}

local KINDS = require('freshpass.kinds') -- generated from facts/model.py by scripts/gen-settings

--- @class freshpass.Subcommand
--- @field run fun(args: string[], cmd: vim.api.keyset.create_user_command.command_args)
--- @field complete? fun(arg_lead: string, args: string[]): string[]
--- @field usage string

--- @type table<string, freshpass.Subcommand>
M.subcommands = {
  verify = {
    usage = 'verify [targeted | ' .. table.concat(KINDS, ' | ') .. ']',
    run = function(args)
      local choice = args[1]
      if choice == nil then
        require('freshpass').verify()
      elseif choice == 'targeted' then
        require('freshpass').verify({ targeted = true })
      elseif vim.list_contains(KINDS, choice) then
        require('freshpass').verify({ kind = choice })
      else
        error(('unknown verify argument %q: use targeted or one of %s'):format(choice, table.concat(KINDS, ', ')), 0)
      end
    end,
    complete = function(arg_lead, args)
      if #args > 1 then
        return {}
      end
      return vim.tbl_filter(function(item)
        return vim.startswith(item, arg_lead)
      end, { 'targeted', unpack(KINDS) })
    end,
  },
  choose = {
    usage = 'choose',
    run = function()
      require('freshpass.choose').choose()
    end,
  },
  status = {
    usage = 'status',
    run = function()
      require('freshpass').show_status()
    end,
  },
  log = {
    usage = 'log [LIMIT]',
    run = function(args)
      local limit = args[1] and tonumber(args[1])
      if args[1] and (not limit or limit < 1 or limit % 1 ~= 0) then
        error(('log takes a number of receipts, got %q'):format(args[1]), 0)
      end
      require('freshpass').show_log({ limit = limit })
    end,
  },
  output = {
    usage = 'output',
    run = function()
      require('freshpass').show_output()
    end,
  },
  cancel = {
    usage = 'cancel',
    run = function()
      require('freshpass').cancel()
    end,
  },
  restart = {
    usage = 'restart',
    run = function()
      require('freshpass').restart()
    end,
  },
}

--- Entry point of the user command.
--- @param cmd vim.api.keyset.create_user_command.command_args
function M.run(cmd)
  local args = cmd.fargs
  local name = args[1] or 'status'
  local subcommand = M.subcommands[name]
  if not subcommand then
    vim.notify(
      ('Freshpass: unknown subcommand %q; use one of: %s'):format(name, table.concat(M.names(), ', ')),
      vim.log.levels.ERROR
    )
    return
  end
  local extra = vim.list_slice(args, 2)
  local ok, err = pcall(subcommand.run, extra, cmd)
  if not ok then
    vim.notify(('Freshpass %s: %s (usage: :Freshpass %s)'):format(name, err, subcommand.usage), vim.log.levels.ERROR)
  end
end

--- @return string[]
function M.names()
  local names = vim.tbl_keys(M.subcommands)
  table.sort(names)
  return names
end

--- Completion for `:Freshpass …`.
--- @param arg_lead string
--- @param cmdline string
--- @return string[]
function M.complete(arg_lead, cmdline, _)
  local words = vim.split(cmdline:gsub('^%s*%S+%s*', ''), '%s+', { trimempty = false })
  if #words <= 1 then
    return vim.tbl_filter(function(name)
      return vim.startswith(name, arg_lead)
    end, M.names())
  end
  local subcommand = M.subcommands[words[1]]
  if subcommand and subcommand.complete then
    return subcommand.complete(arg_lead, vim.list_slice(words, 2))
  end
  return {}
end

return M
