--- Handlers for what the server sends on its own (docs/architecture.md "The language server's protocol").
local codelens = require('freshpass.codelens')
local output = require('freshpass.output')
local state = require('freshpass.state')
local util = require('freshpass.util')

local M = {}

--- `freshpass/statusChanged`: the status JSON of a root (design §4.5). Cache it, redraw statuslines, fire
--- `User FreshpassStatus`, and refresh the lenses of the visible buffers under that root.
--- @type lsp.Handler
function M.status_changed(_, status, ctx)
  if type(status) ~= 'table' or type(status.root) ~= 'string' then
    return
  end
  state.set_status(ctx.client_id, status)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if client then
    codelens.refresh_visible(client, util.realpath(status.root))
  end
end

--- `freshpass/output`: `{root, runId, command, stream, text}` live output of a verify run.
--- @type lsp.Handler
function M.output(_, params, _)
  if type(params) ~= 'table' or type(params.text) ~= 'string' then
    return
  end
  local header = ('── %s  (%s)'):format(params.command or 'verify', params.root or '?')
  output.append(params.text, params.runId, header)
end

--- `workspace/codeLens/refresh` (a request): Neovim 0.11 has no handler of its own for it.
--- @type lsp.Handler
function M.codelens_refresh(_, _, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if client then
    codelens.refresh_visible(client)
  end
  return vim.NIL
end

return M
