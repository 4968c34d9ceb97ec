--- What the plugin knows about each server: the newest status of every root it reported and the verifies in
--- flight. Keyed by client id, so a stopped or restarted server never shows an old status.
local util = require('freshpass.util')

local M = {}

--- client_id -> root -> status JSON (design §4.5)
--- @type table<integer, table<string, table>>
M.statuses = {}

--- client_id -> root ('' for "the server's default root") -> number of verifies running
--- @type table<integer, table<string, integer>>
M.running = {}

--- Remember a status and announce it: statuslines redraw and `User FreshpassStatus` fires.
--- @param client_id integer
--- @param status table
function M.set_status(client_id, status)
  if type(status) ~= 'table' or type(status.root) ~= 'string' then
    return
  end
  local root = util.realpath(status.root)
  M.statuses[client_id] = M.statuses[client_id] or {}
  M.statuses[client_id][root] = status
  M.announce({ client_id = client_id, root = root, status = status })
end

--- @param data table payload of the `User FreshpassStatus` autocmd
function M.announce(data)
  vim.schedule(function()
    pcall(vim.cmd.redrawstatus, { bang = true })
    vim.api.nvim_exec_autocmds('User', { pattern = 'FreshpassStatus', modeline = false, data = data })
  end)
end

--- The status of the root holding `path`: the most specific reported root (a monorepo package root beats the
--- git root it sits in).
--- @param client_id integer
--- @param path string absolute resolved path
--- @return table|nil status, string|nil root
function M.status_for_path(client_id, path)
  local best, best_root = nil, nil
  for root, status in pairs(M.statuses[client_id] or {}) do
    if util.is_under(path, root) and (not best_root or #root > #best_root) then
      best, best_root = status, root
    end
  end
  return best, best_root
end

--- @param client_id integer
--- @param root string|nil
--- @param delta integer +1 when a verify starts, -1 when it ends
function M.track_running(client_id, root, delta)
  local key = root or ''
  M.running[client_id] = M.running[client_id] or {}
  local count = math.max(0, (M.running[client_id][key] or 0) + delta)
  M.running[client_id][key] = count > 0 and count or nil
  M.announce({ client_id = client_id, root = root, running = count })
end

--- Whether a verify runs for the root holding `path` (or for the server's default root).
--- @param client_id integer
--- @param path string
--- @return boolean
function M.is_running(client_id, path)
  for root in pairs(M.running[client_id] or {}) do
    if root == '' or util.is_under(path, root) then
      return true
    end
  end
  return false
end

--- Forget a client that stopped.
--- @param client_id integer
function M.forget(client_id)
  M.statuses[client_id] = nil
  M.running[client_id] = nil
end

return M
