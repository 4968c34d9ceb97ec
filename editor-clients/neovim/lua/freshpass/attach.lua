--- What happens when the freshpass server attaches to a buffer (called from plugin/freshpass.lua's LspAttach).
local codelens = require('freshpass.codelens')
local state = require('freshpass.state')

local M = {}

--- @param client vim.lsp.Client
--- @param bufnr integer
function M.on_attach(client, bufnr)
  local group = vim.api.nvim_create_augroup(('freshpass.buffer.%d'):format(bufnr), { clear = true })
  -- Lenses show the root's status, which changes on a save or on a status notification (handled elsewhere);
  -- entering a buffer catches up on notifications that arrived while it was hidden. Scheduled so that Neovim's
  -- own BufWritePost (didSave) reaches the server before the lens request.
  vim.api.nvim_create_autocmd({ 'BufEnter', 'BufWritePost' }, {
    group = group,
    buffer = bufnr,
    desc = 'freshpass: refresh code lenses',
    callback = function(args)
      vim.schedule(function()
        local current = vim.lsp.get_client_by_id(client.id)
        if current and not current:is_stopped() then
          codelens.refresh(current, args.buf)
        end
      end)
    end,
  })
  vim.api.nvim_create_autocmd('LspDetach', {
    group = group,
    buffer = bufnr,
    desc = 'freshpass: forget the buffer',
    callback = function(args)
      if args.data.client_id ~= client.id then
        return
      end
      pcall(vim.api.nvim_del_augroup_by_id, group)
      codelens.forget(bufnr)
      if client:is_stopped() or vim.tbl_isempty(client.attached_buffers) then
        state.forget(client.id)
      end
      vim.schedule(function()
        pcall(vim.cmd.redrawstatus, { bang = true })
      end)
    end,
  })
  codelens.refresh(client, bufnr)
  require('freshpass').request_status(bufnr)
end

return M
