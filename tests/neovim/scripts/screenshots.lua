-- Screenshots of each status in a real Neovim TUI, taken by the tests so they stay true.
--
-- This (headless) Neovim runs a second, interactive Neovim in a terminal buffer (a real pty, the real TUI with the
-- plugin and `tests/neovim/scripts/screenshot_init.lua`), drives it with keys and external file writes, waits
-- until the screen shows each state, and renders the screen cells (text and colours, read back with
-- `nvim__inspect_cell`) as SVG.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l screenshots.lua PROJECT OUTPUT_DIR PLUGIN
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local here = vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2))
local project = assert(_G.arg[1], 'usage: screenshots.lua PROJECT OUTPUT_DIR PLUGIN')
local output_dir = assert(_G.arg[2], 'usage: screenshots.lua PROJECT OUTPUT_DIR PLUGIN')
local plugin = assert(_G.arg[3], 'usage: screenshots.lua PROJECT OUTPUT_DIR PLUGIN')

-- Without a UI attached, headless Neovim keeps its 80x24 grid whatever 'columns' and 'lines' say: the terminal
-- window (and so the screen of the Neovim under test) is as large as the window gets.
vim.o.laststatus, vim.o.ruler, vim.o.showmode = 0, false, false
local COLUMNS, LINES = vim.api.nvim_win_get_width(0), vim.api.nvim_win_get_height(0)
vim.fn.mkdir(output_dir, 'p')

local terminal_buf = vim.api.nvim_get_current_buf()
local job = vim.fn.jobstart({
  vim.v.progpath,
  '-u',
  vim.fs.joinpath(here, 'screenshot_init.lua'),
  '-i',
  'NONE',
  'src/calc.py',
}, {
  term = true,
  cwd = project,
  env = { FRESHPASS_NVIM_PLUGIN = plugin, COLORTERM = 'truecolor' },
})
H.check(job > 0, 'could not start the Neovim under test')

--- Quit the Neovim under test (it stops its own server) and wait until it has.
local function quit_child()
  vim.fn.chansend(job, vim.keycode('<Esc><Esc>:qall!<CR>'))
  if vim.fn.jobwait({ job }, 10000)[1] == -1 then
    vim.fn.jobstop(job)
    vim.fn.jobwait({ job }, 5000)
  end
end
table.insert(H.cleanups, quit_child)

--- The terminal's text, one string per screen row.
local function screen()
  return vim.api.nvim_buf_get_lines(terminal_buf, 0, -1, false)
end

local function screen_text()
  return table.concat(screen(), '\n')
end

--- The statusline row of the Neovim under test (above its command line).
local function statusline_row()
  local rows = screen()
  return rows[#rows - 1] or ''
end

--- Wait until the screen shows every one of `texts` and the statusline ends with `status`.
local function wait_screen(description, texts, status)
  local missing
  local shown = vim.wait(H.timeout, function()
    local text = screen_text()
    for _, wanted in ipairs(texts) do
      if not text:find(wanted, 1, true) then
        missing = wanted
        return false
      end
    end
    missing = 'statusline ' .. status
    return vim.endswith(vim.trim(statusline_row()), status)
  end, 50)
  if not shown then
    local message = 'timed out waiting for %s on the screen (missing %q); the screen:\n%s'
    H.fail(message:format(description, missing, screen_text()))
  end
end

local function keys(text)
  vim.fn.chansend(job, vim.keycode(text))
end

local function escape_xml(text)
  return (text:gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;'))
end

local normal = vim.api.nvim_get_hl(0, { name = 'Normal', link = false })
local DEFAULT_FG, DEFAULT_BG = normal.fg or 0xe0e2ea, normal.bg or 0x14161b

--- The screen as SVG: background rects for runs of equal background, and one text element per run of non-blank
--- cells with equal attributes, stretched to exactly its cells (spaces are never drawn, so no renderer collapses
--- them and every run starts at its own column).
local function svg()
  vim.cmd.redraw()
  local cell_w, cell_h, font = 8.4, 18, 14
  -- Rows to draw: the file's lines and two `~` rows below them, then the statusline and the command line; the
  -- other empty `~` rows of the 24-row terminal only take space.
  local rows, text_rows = {}, screen()
  local last_content = 0
  for index = 1, LINES - 2 do
    if (text_rows[index] or '') ~= '~' then
      last_content = index
    end
  end
  for index = 1, LINES do
    if index <= last_content + 2 or index > LINES - 2 then
      rows[#rows + 1] = index - 1
    end
  end
  local out = {
    ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">'):format(
      COLUMNS * cell_w,
      #rows * cell_h,
      COLUMNS * cell_w,
      #rows * cell_h
    ),
    ('<rect width="100%%" height="100%%" fill="#%06x"/>'):format(DEFAULT_BG),
    ('<g font-family="ui-monospace, \'DejaVu Sans Mono\', Menlo, Consolas, monospace" font-size="%d">'):format(font),
  }
  for drawn, row in ipairs(rows) do
    local cells = {}
    for col = 0, COLUMNS - 1 do
      local cell = vim.api.nvim__inspect_cell(1, row, col)
      local attrs = cell[2] or {}
      local fg, bg = attrs.foreground or DEFAULT_FG, attrs.background or DEFAULT_BG
      if attrs.reverse then
        fg, bg = bg, fg
      end
      local underline = attrs.underline or attrs.undercurl or false
      cells[#cells + 1] = {
        text = cell[1],
        fg = fg,
        bg = bg,
        attrs = attrs,
        style = ('%06x%s%s%s'):format(
          fg,
          attrs.bold and ':b' or '',
          attrs.italic and ':i' or '',
          underline and ':u' or ''
        ),
      }
    end
    local y = (drawn - 1) * cell_h
    local col = 1
    while col <= #cells do -- backgrounds
      local last = col
      while last < #cells and cells[last + 1].bg == cells[col].bg do
        last = last + 1
      end
      if cells[col].bg ~= DEFAULT_BG then
        out[#out + 1] = ('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#%06x"/>'):format(
          (col - 1) * cell_w, y, (last - col + 1) * cell_w, cell_h, cells[col].bg)
      end
      col = last + 1
    end
    col = 1
    while col <= #cells do -- text; '' is the second half of a wide character
      local first = cells[col]
      if first.text == ' ' or first.text == '' then
        col = col + 1
      else
        local last, text = col, first.text
        while last < #cells do
          local next_cell = cells[last + 1]
          if next_cell.text == '' then
            last = last + 1
          elseif next_cell.text ~= ' ' and next_cell.style == first.style then
            last, text = last + 1, text .. next_cell.text
          else
            break
          end
        end
        local element = '<text x="%.1f" y="%.1f" fill="#%06x"%s%s%s textLength="%.1f" '
          .. 'lengthAdjust="spacingAndGlyphs">%s</text>'
        out[#out + 1] = element:format(
          (col - 1) * cell_w,
          y + cell_h * 0.75,
          first.fg,
          first.attrs.bold and ' font-weight="bold"' or '',
          first.attrs.italic and ' font-style="italic"' or '',
          (first.attrs.underline or first.attrs.undercurl) and ' text-decoration="underline"' or '',
          (last - col + 1) * cell_w,
          escape_xml(text)
        )
        col = last + 1
      end
    end
  end
  out[#out + 1] = '</g></svg>'
  return table.concat(out, '\n') .. '\n'
end

local function capture(name)
  local path = vim.fs.joinpath(output_dir, ('neovim-%s.svg'):format(name))
  local file = assert(io.open(path, 'w'))
  file:write(svg())
  file:close()
  local text = assert(io.open(vim.fs.joinpath(output_dir, ('neovim-%s.txt'):format(name)), 'w'))
  text:write(screen_text(), '\n')
  text:close()
end

local function write_file(relative, content)
  local file = assert(io.open(vim.fs.joinpath(project, relative), 'w'))
  file:write(content)
  file:close()
end

-- Nothing verified yet.
wait_screen('the status lens of a new project', { '⚠ unverified · no receipt yet', '▶ Run' }, '⚠ unverified')
capture('unverified-new')

-- :Freshpass verify → full.
keys(':Freshpass verify<CR>')
wait_screen('the `full` lens and statusline', { '✓ full ·', 'freshpass ✓ full' }, '✓ full')
capture('full')

-- Edit and save → unverified, with the diagnostic.
keys('Go<CR>def triple(x):<CR>return 3 * x<Esc>:write<CR>')
wait_screen(
  'the `unverified` lens and the diagnostic',
  { '⚠ unverified · 1 file changed', 'changed since' },
  '⚠ unverified'
)
capture('unverified')

-- A narrower run in a terminal (another process): the server picks it up from the ledger → targeted.
local targeted_run = { 'freshpass', 'run', '--', 'pytest', '-q', '-p', 'no:cacheprovider', 'tests/test_calc.py' }
local run = vim.system(targeted_run, { cwd = project }):wait(60000)
H.check(run.code == 0, 'freshpass run failed: ' .. (run.stdout or '') .. (run.stderr or ''))
wait_screen('the `targeted` lens and statusline', { '◐ targeted ·' }, '◐ targeted')
capture('targeted')

-- A failing test written behind the editor's back, then verify → failed.
write_file('tests/test_calc.py', 'from calc import double\n\n\ndef test_double():\n    assert double(2) == 5\n')
wait_screen('`unverified` after the external write', {}, '⚠ unverified')
keys(':Freshpass verify<CR>')
wait_screen('the `failed` lens and statusline', { '✗ failed ·' }, '✗ failed')
capture('failed')

quit_child()
H.done()
