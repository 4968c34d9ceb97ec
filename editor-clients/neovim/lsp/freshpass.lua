-- The freshpass language server for Neovim 0.11+: `vim.lsp.enable('freshpass')` with this plugin on 'runtimepath'.
-- Override any field with `vim.lsp.config('freshpass', {...})` or `require('freshpass').setup({...})`.
-- Settings and defaults: `:help freshpass-settings` (the same names as the VS Code extension).
local defaults = require('freshpass.config')

---@type vim.lsp.Config
return {
  cmd = { 'freshpass', 'serve' },
  -- No `filetypes`: freshness concerns every file of a project, so the server attaches to all of them.
  root_markers = defaults.root_markers,
  -- Like the default use of `root_markers` (read from the resolved config, so overriding them works), but only
  -- for buffers backed by a file: `vim.lsp.enable()` also visits the empty startup buffer and scratch buffers,
  -- which would otherwise each start a server for the current directory. A file outside any project has no
  -- root and so no status (design §1): no server for it either.
  root_dir = function(bufnr, on_dir)
    if vim.api.nvim_buf_get_name(bufnr) == '' then
      return
    end
    local markers = (vim.lsp.config[defaults.name] or {}).root_markers or defaults.root_markers
    local root = vim.fs.root(bufnr, markers)
    if root then
      on_dir(root)
    end
  end,
  settings = { freshpass = defaults.default_settings() },
  -- Top-level initializationOptions besides the settings: `sessionId`, `agent = true`. The settings above are
  -- added by `before_init`, so that overriding only `settings` is enough.
  init_options = vim.empty_dict(),
  before_init = function(params, config)
    local extra = config.init_options or {}
    local settings = vim.tbl_get(config, 'settings', 'freshpass') or {}
    params.initializationOptions = vim.tbl_deep_extend('force', vim.deepcopy(settings), extra)
  end,
  capabilities = {
    -- Neovim 0.11 does not advertise this; the plugin's handler below refreshes the lenses.
    workspace = { codeLens = { refreshSupport = true } },
  },
  handlers = {
    ['freshpass/statusChanged'] = function(...)
      return require('freshpass.handlers').status_changed(...)
    end,
    ['freshpass/output'] = function(...)
      return require('freshpass.handlers').output(...)
    end,
    ['workspace/codeLens/refresh'] = function(...)
      return require('freshpass.handlers').codelens_refresh(...)
    end,
  },
  -- Code lenses and `:Freshpass verify` both execute these; handling them client-side reports the receipt and
  -- keeps the statusline's "verifying" state (the request still goes to the server's workspace/executeCommand).
  commands = {
    ['freshpass.verify'] = function(command, ctx)
      require('freshpass')._run_verify(command, ctx)
    end,
    ['freshpass.receipts'] = function(command, ctx)
      require('freshpass')._run_receipts(command, ctx)
    end,
  },
}
