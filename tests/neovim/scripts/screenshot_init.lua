-- init.lua of the Neovim that screenshots.lua shows in a terminal: a plain config a user could have.
vim.opt.runtimepath:prepend(vim.env.FRESHPASS_NVIM_PLUGIN)
vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = 'yes'
vim.o.laststatus = 2
vim.o.swapfile = false
vim.o.statusline = " %f %m%= %{%v:lua.require'freshpass'.statusline_hl()%}  "
-- Diagnostics on their own lines, so that the code lens at the end of line 1 stays visible.
vim.diagnostic.config({ virtual_lines = true })
vim.lsp.enable('freshpass')
