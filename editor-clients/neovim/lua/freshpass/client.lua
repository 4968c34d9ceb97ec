--- Finding the freshpass client for a buffer and what to ask it about (a root or the buffer's URI).
local config = require('freshpass.config')
local state = require('freshpass.state')
local util = require('freshpass.util')

local M = {}

--- @class freshpass.Target
--- @field client vim.lsp.Client
--- @field bufnr integer
--- @field root string|nil the most specific root the server reported for the buffer, if any
--- @field uri string|nil the buffer's file URI when the client is attached to it

--- All running freshpass clients.
--- @return vim.lsp.Client[]
function M.clients()
  return vim.lsp.get_clients({ name = config.name })
end

--- The freshpass client attached to `bufnr`, if any.
--- @param bufnr integer
--- @return vim.lsp.Client|nil
function M.attached(bufnr)
  return vim.lsp.get_clients({ name = config.name, bufnr = bufnr })[1]
end

--- What a command in `bufnr` is about. Buffers the server is not attached to (the receipts or output buffer, an
--- empty buffer) fall back to the root they were opened for, or to the only running server.
--- @param bufnr integer
--- @return freshpass.Target|nil target, string|nil error a message a person can act on
function M.target(bufnr)
  local client = M.attached(bufnr)
  if client then
    local path = util.buf_path(bufnr)
    local _, root = state.status_for_path(client.id, path)
    return { client = client, bufnr = bufnr, root = root, uri = vim.uri_from_bufnr(bufnr) }
  end
  local remembered = vim.b[bufnr].freshpass_target --[[@as {client_id: integer, root: string?}|nil]]
  if remembered then
    local remembered_client = vim.lsp.get_client_by_id(remembered.client_id)
    if remembered_client and not remembered_client:is_stopped() then
      return { client = remembered_client, bufnr = bufnr, root = remembered.root }
    end
  end
  local running = M.clients()
  if #running == 1 then
    local root = running[1].root_dir and util.realpath(running[1].root_dir) or nil
    return { client = running[1], bufnr = bufnr, root = root }
  end
  if #running == 0 then
    return nil,
      'freshpass: no language server is running. Open a file inside a project with vim.lsp.enable("freshpass") '
        .. 'in your config, then see :checkhealth freshpass.'
  end
  return nil, 'freshpass: several projects are open; run this from a file of the project you mean.'
end

--- The `{root} | {uri}` argument the server's commands and requests take (docs/architecture.md).
--- @param target freshpass.Target
--- @return table
function M.where(target)
  if target.root then
    return { root = target.root }
  elseif target.uri then
    return { uri = target.uri }
  end
  return vim.empty_dict()
end

--- Whether the server offers `command` through workspace/executeCommand.
--- @param client vim.lsp.Client
--- @param command string
--- @return boolean
function M.offers(client, command)
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  return type(provider) == 'table' and vim.list_contains(provider.commands or {}, command)
end

--- Format an LSP error for a message.
--- @param err table|nil
--- @return string
function M.error_text(err)
  if type(err) ~= 'table' then
    return tostring(err)
  end
  return err.message or vim.inspect(err)
end

return M
