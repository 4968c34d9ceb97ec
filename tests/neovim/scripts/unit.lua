-- The plugin's pure logic, without a server: labels, timestamps, the output buffer, status text.
-- Usage: nvim --clean --headless --cmd 'set rtp+=PLUGIN' -l unit.lua
local H = dofile(vim.fs.joinpath(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)), 'helpers.lua'))
local util = require('freshpass.util')
local output = require('freshpass.output')

local function eq(actual, expected, what)
  local message = ('%s: expected %s, got %s'):format(what, vim.inspect(expected), vim.inspect(actual))
  H.check(vim.deep_equal(actual, expected), message)
end

-- Labels (design §1): fresh pass → full/targeted, fresh failure → failed, anything else → unverified.
eq(util.label({ status = 'passed', scope = 'full' }), '✓ full', 'passed full')
eq(util.label({ status = 'passed', scope = 'targeted' }), '◐ targeted', 'passed targeted')
eq(util.label({ status = 'failed', scope = 'full' }), '✗ failed', 'failed')
eq(util.label({ status = 'stale', scope = 'full' }), '⚠ unverified', 'stale')
eq(util.label({ status = 'unverified' }), '⚠ unverified', 'unverified')
eq(util.label(nil), nil, 'no status')
eq(util.label_group({ status = 'passed', scope = 'full' }), 'FreshpassFull', 'badge full')
eq(util.label_group({ status = 'passed', scope = 'targeted' }), 'FreshpassTargeted', 'badge targeted')
eq(util.label_group({ status = 'failed', scope = 'full' }), 'FreshpassFailed', 'badge failed')
eq(util.label_group({ status = 'stale', scope = 'full' }), 'FreshpassUnverified', 'badge stale')

-- Timestamps: epoch numbers and ISO 8601 with Z, offsets and fractions all mean the same instant.
eq(util.epoch(1700000000), 1700000000, 'epoch number')
eq(util.epoch('2023-11-14T22:13:20Z'), 1700000000, 'ISO Z')
eq(util.epoch('2023-11-14T22:13:20+00:00'), 1700000000, 'ISO +00:00')
eq(util.epoch('2023-11-15T00:13:20+02:00'), 1700000000, 'ISO +02:00')
eq(util.epoch('2023-11-14T17:13:20-05:00'), 1700000000, 'ISO -05:00')
eq(util.epoch('2023-11-14T22:13:20.5+00:00'), 1700000000.5, 'ISO fraction')
eq(util.epoch('yesterday'), nil, 'not a time')
eq(util.age(1000, 1002), 'just now', 'age < 5 s')
eq(util.age(1000, 1042), '42s ago', 'age seconds')
eq(util.age(1000, 1000 + 5 * 60 + 3), '5 min ago', 'age minutes')
eq(util.age(1000, 1000 + 3 * 3600), '3 h ago', 'age hours')
eq(util.age(1000, 1000 + 2 * 86400), '2 d ago', 'age days')

-- Paths: a root contains itself and what is below it, not a sibling with the same prefix.
H.check(util.is_under('/a/b/c.py', '/a/b'), 'file under root')
H.check(util.is_under('/a/b', '/a/b'), 'root itself')
H.check(not util.is_under('/a/bc/d.py', '/a/b'), 'sibling with a common prefix')

-- Status text copes with nulls and missing fields (JSON null may arrive as vim.NIL).
local lines = util.status_lines({
  root = '/p',
  status = 'unverified',
  scope = vim.NIL,
  evidence = vim.NIL,
  kinds = vim.empty_dict(),
  changed_paths = { 'a.py', 'b.py', 'c.py', 'd.py', 'e.py', 'f.py' },
  verify_commands = {},
})
eq(lines[1], 'freshpass ⚠ unverified  /p', 'status headline')
H.check(H.any_line(lines, 'evidence: none recorded'), 'no evidence: ' .. vim.inspect(lines))
H.check(H.any_line(lines, 'changed since: a.py, b.py, c.py, d.py, e.py (+1 more)'), vim.inspect(lines))
H.check(H.any_line(lines, 'verify commands: none declared'), vim.inspect(lines))
local receipt = util.receipt_line({
  id = 7,
  status = 'failed',
  scope = 'full',
  kind = 'test',
  command = 'pytest -q',
  exit_code = 5,
  reason = 'no tests ran',
  duration = 1.5,
  finished_at = 1700000000,
  tests = vim.NIL,
}, 7)
H.check(receipt:find('✗ failed', 1, true) and receipt:find('(exit 5, 1.5s, no tests ran)', 1, true), receipt)
H.check(receipt:find('← current status', 1, true), 'current receipt marked: ' .. receipt)
local message, level = util.verify_summary(
  { command = 'pytest -q', status = 'passed', exit_code = 0, tests = { passed = 3, failed = 0, skipped = 0 } },
  { status = 'passed', scope = 'full' }
)
eq(message, 'freshpass ✓ full — pytest -q passed (3 passed)', 'verify summary')
eq(level, vim.log.levels.INFO, 'a pass is info')
message, level = util.verify_summary(
  { command = 'pytest -q', status = 'failed', exit_code = 1, tests = { passed = 2, failed = 1 } },
  { status = 'failed', scope = 'full' }
)
eq(message, 'freshpass ✗ failed — pytest -q failed (exit 1, 2 passed, 1 failed)', 'failed verify summary')
eq(level, vim.log.levels.WARN, 'a failure is a warning')
message = util.verify_summary(
  { command = 'pytest -q', status = 'failed', exit_code = 127, reason = 'command not found' },
  { status = 'failed', scope = 'full' },
  '`pytest` was not found: freshpass looked on PATH (/usr/bin).'
)
eq(
  message,
  'freshpass ✗ failed — pytest -q failed (exit 127): `pytest` was not found: freshpass looked on PATH (/usr/bin).',
  'a failure the server explains: the exit code once, the explanation instead of the reason'
)
message = util.verify_summary(
  { command = 'pytest -q', status = 'failed', exit_code = 127, reason = 'command not found (exit 127)' },
  { status = 'failed', scope = 'full' }
)
eq(message, 'freshpass ✗ failed — pytest -q failed (exit 127, command not found)', 'an older reason: the code once')
eq(util.reason({ exit_code = 1, reason = 'exit code 1' }), nil, "a recipe's reason that is only the exit code")
eq(util.reason({ exit_code = 2, reason = 'no tests ran' }), 'no tests ran', 'other reasons stay')

-- Output: chunks split anywhere join into whole lines; runs get one header; colours are stripped.
output.append('partial line without a header', 0)
output.append(' continued\n', 0)
eq(output.lines(), { 'partial line without a header continued' }, 'a line continued in an empty buffer')
vim.bo[output.buffer()].modifiable = true
vim.api.nvim_buf_set_lines(output.buffer(), 0, -1, false, {})
vim.bo[output.buffer()].modifiable = false
output.append('collecting', 1, '── pytest -q  (/p)')
output.append(' ... 3 items\n\27[32m3 passed\27[0m in 0.01s\n', 1, '── pytest -q  (/p)')
output.append('second run\n', 2, '── ruff check  (/p)')
eq(output.lines(), {
  '── pytest -q  (/p)',
  'collecting ... 3 items',
  '3 passed in 0.01s',
  '── ruff check  (/p)',
  'second run',
}, 'output buffer')

-- The user command reports a mistyped subcommand with the list of real ones.
-- (An error message inside a command run from Lua becomes an exception, as with :echoerr.)
local ok, err = pcall(vim.cmd, 'Freshpass nope')
local listed = 'unknown subcommand "nope"; use one of: cancel, choose, log, output, restart, status, verify'
H.check(not ok and err:find(listed, 1, true), tostring(err))
-- Without a server, commands say how to get one instead of failing.
ok, err = pcall(vim.cmd, 'Freshpass verify')
H.check(not ok and err:find('no language server is running', 1, true), 'verify without a server: ' .. tostring(err))
eq(require('freshpass').statusline(), '', 'statusline of a buffer without a server')
eq(require('freshpass').statusline_hl(), '', 'coloured statusline of a buffer without a server')

-- The help file's tags are unique and resolve.
local doc = vim.fs.joinpath(vim.fn.tempname(), 'doc')
vim.fn.mkdir(doc, 'p')
local plugin_doc = vim.api.nvim_get_runtime_file('doc/freshpass.txt', false)[1]
H.check(plugin_doc, 'doc/freshpass.txt is on the runtimepath')
vim.uv.fs_copyfile(plugin_doc, vim.fs.joinpath(doc, 'freshpass.txt'))
vim.cmd.helptags(vim.fn.fnameescape(doc))
vim.opt.runtimepath:append(vim.fs.dirname(doc))
for _, tag in ipairs({ 'freshpass', ':Freshpass', 'freshpass-statusline', 'freshpass-settings', 'freshpass-health' }) do
  local ok, err = pcall(vim.cmd.help, tag)
  H.check(ok, ('help tag %s: %s'):format(tag, err))
end

-- Defaults for the Python side to compare with the settings table and facts/roots.py.
io.stdout:write(vim.json.encode({
  settings = require('freshpass.config').default_settings(),
  root_markers = require('freshpass.config').root_markers,
}), '\n')
H.done()
