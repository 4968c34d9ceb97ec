--- Keeping freshpass code lenses current.
---
--- Neovim 0.11 does not handle `workspace/codeLens/refresh` by itself and `vim.lsp.codelens.refresh()` drops a
--- request while an earlier one for the same buffer is in flight (the earlier answer may predate the change), so
--- the plugin asks the freshpass client directly and keeps only the newest answer per buffer. The answers go
--- through `vim.lsp.codelens.on_codelens`, so `vim.lsp.codelens.run()` and `get()` see them as usual.
local config = require('freshpass.config')
local util = require('freshpass.util')

local M = {}

--- bufnr -> number of the newest request; older answers are dropped
--- @type table<integer, integer>
local newest = {}

--- Ask `client` for the lenses of `bufnr` now.
--- @param client vim.lsp.Client
--- @param bufnr integer
function M.refresh(client, bufnr)
  if not config.options.codelens or not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  if not client:supports_method('textDocument/codeLens', bufnr) or not client.attached_buffers[bufnr] then
    return
  end
  local generation = (newest[bufnr] or 0) + 1
  newest[bufnr] = generation
  local params = { textDocument = vim.lsp.util.make_text_document_params(bufnr) }
  client:request('textDocument/codeLens', params, function(err, result, ctx)
    if newest[bufnr] ~= generation or not vim.api.nvim_buf_is_loaded(bufnr) then
      return
    end
    vim.lsp.codelens.on_codelens(err, result or {}, ctx)
  end, bufnr)
end

--- Refresh the buffers of `client` shown in a window (optionally only those under `root`); hidden buffers catch up
--- on BufEnter.
--- @param client vim.lsp.Client
--- @param root? string
function M.refresh_visible(client, root)
  local seen = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local bufnr = vim.api.nvim_win_get_buf(win)
    if not seen[bufnr] and client.attached_buffers[bufnr] then
      seen[bufnr] = true
      if not root or util.is_under(util.buf_path(bufnr), root) then
        M.refresh(client, bufnr)
      end
    end
  end
end

--- Forget a buffer's request counter.
--- @param bufnr integer
function M.forget(bufnr)
  newest[bufnr] = nil
end

return M
