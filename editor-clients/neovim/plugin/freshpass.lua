-- freshpass: the `:Freshpass` command and the LspAttach hook. Everything else loads on first use.
if vim.g.loaded_freshpass then
  return
end
vim.g.loaded_freshpass = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.api.nvim_create_user_command('Freshpass', function()
    vim.notify('freshpass needs Neovim 0.11 or newer (this is ' .. tostring(vim.version()) .. ')', vim.log.levels.ERROR)
  end, { nargs = '*', desc = 'freshpass (needs Neovim 0.11)' })
  return
end

vim.api.nvim_create_user_command('Freshpass', function(cmd)
  require('freshpass.commands').run(cmd)
end, {
  nargs = '*',
  desc = 'freshpass: verify | status | log | output | cancel | restart',
  complete = function(arg_lead, cmdline, cursor)
    return require('freshpass.commands').complete(arg_lead, cmdline, cursor)
  end,
})

vim.api.nvim_create_autocmd('LspAttach', {
  group = vim.api.nvim_create_augroup('freshpass', { clear = true }),
  desc = 'freshpass: code lenses and status for the buffer',
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == 'freshpass' then
      require('freshpass.attach').on_attach(client, args.buf)
    end
  end,
})

-- A plugin manager may load this file after the server attached (lazy loading): catch up with those buffers.
for _, client in ipairs(vim.lsp.get_clients({ name = 'freshpass' })) do
  for bufnr in pairs(client.attached_buffers) do
    require('freshpass.attach').on_attach(client, bufnr)
  end
end
