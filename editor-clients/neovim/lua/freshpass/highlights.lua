--- Highlight groups of the coloured statusline label: a badge in the colour of the matching diagnostic severity,
--- readable on light and dark statuslines alike. Defined with `default = true` (a user's own definition wins) and
--- again after every `:colorscheme`, which clears them.
local M = {}

--- group -> diagnostic group whose colour it takes
M.groups = {
  FreshpassFull = 'DiagnosticOk',
  FreshpassTargeted = 'DiagnosticInfo',
  FreshpassUnverified = 'DiagnosticWarn',
  FreshpassFailed = 'DiagnosticError',
  FreshpassVerifying = 'DiagnosticHint',
}

local defined = false

function M.define()
  local normal = vim.api.nvim_get_hl(0, { name = 'Normal', link = false })
  for group, source in pairs(M.groups) do
    local color = vim.api.nvim_get_hl(0, { name = source, link = false })
    vim.api.nvim_set_hl(0, group, {
      default = true,
      fg = normal.bg or 'Black',
      bg = color.fg or 'Grey',
      ctermfg = normal.ctermbg or 0,
      ctermbg = color.ctermfg or 7,
      bold = true,
    })
  end
  if not defined then
    defined = true
    vim.api.nvim_create_autocmd('ColorScheme', {
      group = vim.api.nvim_create_augroup('freshpass.highlights', { clear = true }),
      desc = 'freshpass: define the statusline badge colours again',
      callback = M.define,
    })
  end
end

--- @param group string
--- @return string group, defined on first use
function M.use(group)
  if not defined then
    M.define()
  end
  return group
end

return M
