--- Small pure helpers: reading the server's JSON defensively and formatting it for people.
local M = {}

--- JSON null arrives as `nil` or `vim.NIL` depending on the decoder options: treat both as absent.
--- @param value any
--- @return boolean
function M.present(value)
  return value ~= nil and value ~= vim.NIL
end

--- The label editors show for a root's status (design §1): a fresh pass is `full` or `targeted`, a fresh failure
--- is `failed`, anything not fresh (no evidence, or content changed since) is `unverified`.
--- @param status table|nil status JSON (design §4.5)
--- @return string|nil
function M.label(status)
  if type(status) ~= 'table' then
    return nil
  end
  if status.status == 'passed' then
    return status.scope == 'full' and '✓ full' or '◐ targeted'
  elseif status.status == 'failed' then
    return '✗ failed'
  elseif status.status == 'flaky' then
    return '≈ flaky'
  elseif status.status == 'unchecked' then
    -- an untrusted workspace: freshpass runs nothing there (not even git), so freshness is not checked
    return '○ not checked'
  end
  return '⚠ unverified'
end

--- The diagnostic highlight group of a label, for messages (same mapping as `label`).
--- @param status table|nil
--- @return string
function M.label_hl(status)
  local value = type(status) == 'table' and status.status or nil
  if value == 'passed' then
    return status.scope == 'full' and 'DiagnosticOk' or 'DiagnosticInfo'
  elseif value == 'failed' then
    return 'DiagnosticError'
  elseif value == 'flaky' then
    return 'DiagnosticWarn'
  elseif value == 'unchecked' then
    return 'Comment'
  end
  return 'DiagnosticWarn'
end

--- The highlight group of a label's badge (see freshpass.highlights), same mapping as `label`.
--- @param status table|nil
--- @return string
function M.label_group(status)
  local value = type(status) == 'table' and status.status or nil
  if value == 'passed' then
    return status.scope == 'full' and 'FreshpassFull' or 'FreshpassTargeted'
  elseif value == 'failed' or value == 'flaky' then
    return 'FreshpassFailed'
  end
  return 'FreshpassUnverified'
end

local function utc_offset_seconds(epoch)
  local utc = os.date('!*t', epoch) --[[@as osdate]]
  utc.isdst = false
  return os.difftime(epoch, os.time(utc --[[@as osdateparam]]))
end

--- Seconds since the epoch of a timestamp the server sent: epoch seconds, or ISO 8601 (`Z` or `±HH:MM`).
--- @param value any
--- @return number|nil
function M.epoch(value)
  if type(value) == 'number' then
    return value
  end
  if type(value) ~= 'string' then
    return nil
  end
  local y, mo, d, h, mi, s, rest = value:match('^(%d%d%d%d)-(%d%d)-(%d%d)[T ](%d%d):(%d%d):(%d%d)(.*)$')
  if not y then
    return nil
  end
  local fraction = tonumber(rest:match('^(%.%d+)') or '0') or 0
  local zone = rest:gsub('^%.%d+', '')
  local offset = 0
  if zone ~= '' and zone ~= 'Z' and zone ~= 'z' then
    local sign, zh, zm = zone:match('^([+-])(%d%d):?(%d%d)$')
    if not sign then
      return nil
    end
    offset = (tonumber(zh) * 3600 + tonumber(zm) * 60) * (sign == '-' and -1 or 1)
  end
  local fields = {
    year = tonumber(y),
    month = tonumber(mo),
    day = tonumber(d),
    hour = tonumber(h),
    min = tonumber(mi),
    sec = tonumber(s),
    isdst = false,
  }
  -- os.time reads the fields as local time: shift by the local UTC offset to read them as UTC.
  local as_local = os.time(fields)
  return as_local + utc_offset_seconds(as_local) - offset + fraction
end

--- "just now", "42s ago", "5 min ago", "3 h ago", "2 d ago".
--- @param value any timestamp (see `epoch`)
--- @param now? number
--- @return string|nil
function M.age(value, now)
  local at = M.epoch(value)
  if not at then
    return nil
  end
  local seconds = math.max(0, (now or os.time()) - at)
  if seconds < 5 then
    return 'just now'
  elseif seconds < 60 then
    return ('%ds ago'):format(seconds)
  elseif seconds < 3600 then
    return ('%d min ago'):format(seconds / 60)
  elseif seconds < 86400 then
    return ('%d h ago'):format(seconds / 3600)
  end
  return ('%d d ago'):format(seconds / 86400)
end

--- Local wall-clock time of a timestamp, for receipts.
--- @param value any
--- @return string
function M.clock(value)
  local at = M.epoch(value)
  return at and os.date('%Y-%m-%d %H:%M:%S', math.floor(at)) --[[@as string]]
    or (M.present(value) and tostring(value) or '?')
end

--- "3 passed, 1 failed, 2 skipped" from the evidence `tests` object, or nil when the output did not say.
--- @param tests any
--- @return string|nil
function M.tests_summary(tests)
  if type(tests) ~= 'table' then
    return nil
  end
  local parts = {}
  for _, key in ipairs({ 'passed', 'failed', 'skipped' }) do
    if type(tests[key]) == 'number' and tests[key] > 0 then
      parts[#parts + 1] = ('%d %s'):format(tests[key], key)
    end
  end
  return #parts > 0 and table.concat(parts, ', ') or nil
end

--- "1.2s" / "3 min 4s".
--- @param seconds any
--- @return string|nil
function M.duration(seconds)
  if type(seconds) ~= 'number' then
    return nil
  end
  if seconds < 60 then
    return ('%.1fs'):format(seconds)
  end
  return ('%d min %ds'):format(seconds / 60, seconds % 60)
end

--- The absolute, symlink-free path of a buffer's file ('' for buffers without a file).
--- @param bufnr integer
--- @return string
function M.buf_path(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return ''
  end
  return M.realpath(name)
end

local realpaths = {} --- @type table<string, string>

--- `path` with symlinks resolved when it exists (the server reports resolved roots), memoised because
--- statuslines ask on every redraw.
--- @param path string
--- @return string
function M.realpath(path)
  local cached = realpaths[path]
  if cached then
    return cached
  end
  local absolute = vim.fs.normalize(vim.fn.fnamemodify(path, ':p'))
  local resolved = vim.uv.fs_realpath(absolute)
  if resolved then
    -- Only remember paths that exist: a new file's directory may appear (and resolve differently) later.
    realpaths[path] = resolved
  end
  return resolved or absolute
end

--- Whether `path` is `root` or inside it.
--- @param path string
--- @param root string
--- @return boolean
function M.is_under(path, root)
  if path == root then
    return true
  end
  local prefix = root:sub(-1) == '/' and root or root .. '/'
  return path:sub(1, #prefix) == prefix
end

--- The receipt's reason without its exit code, which is shown beside it: receipts recorded before the reasons
--- dropped it say `command not found (exit 127)`, and `freshpass verify`'s said `exit code 1`.
--- @param evidence table
--- @return string|nil
function M.reason(evidence)
  local reason = evidence.reason
  if not M.present(reason) or reason == '' then
    return nil
  end
  if M.present(evidence.exit_code) then
    local code = tostring(evidence.exit_code)
    if reason == 'exit code ' .. code then
      return nil
    end
    local suffix = ' (exit ' .. code .. ')'
    if reason:sub(-#suffix) == suffix then
      reason = reason:sub(1, -#suffix - 1)
    end
  end
  return reason
end

--- One-line summary of a finished verify for `:messages`.
--- @param evidence table|nil
--- @param status table|nil
--- @param explanation? string the server's `message` (why a program was not found and what fixes it)
--- @return string message, integer level
function M.verify_summary(evidence, status, explanation)
  if type(evidence) ~= 'table' then
    local label = M.label(status) or 'no result'
    return ('freshpass: %s (the server recorded no evidence)'):format(label), vim.log.levels.WARN
  end
  local explained = type(explanation) == 'string' and explanation ~= ''
  local details = {}
  if evidence.status ~= 'passed' then
    details[#details + 1] = ('exit %s'):format(M.present(evidence.exit_code) and evidence.exit_code or '?')
  end
  details[#details + 1] = M.tests_summary(evidence.tests)
  details[#details + 1] = not explained and M.reason(evidence) or nil
  local command = evidence.command or evidence.canonical_command or '?'
  local label = M.label(status) or (evidence.status == 'passed' and '✓' or '✗')
  local message = ('freshpass %s — %s %s'):format(label, command, evidence.status or '?')
  if #details > 0 then
    message = ('%s (%s)'):format(message, table.concat(details, ', '))
  end
  if explained then
    message = ('%s: %s'):format(message, explanation)
  end
  return message, evidence.status == 'passed' and vim.log.levels.INFO or vim.log.levels.WARN
end

--- Lines describing a root's status, for `:Freshpass status`.
--- @param status table status JSON (design §4.5)
--- @return string[]
function M.status_lines(status)
  local lines = { ('freshpass %s  %s'):format(M.label(status) or '?', status.root or '?') }
  local detail = status.status
  if M.present(status.scope) and status.status ~= 'unverified' then
    detail = ('%s, %s'):format(detail, status.scope)
  end
  lines[#lines + 1] = '  status: ' .. tostring(detail)
  local evidence = status.evidence
  if type(evidence) == 'table' then
    local parts = { evidence.command or evidence.canonical_command or '?' }
    local exit_code = M.present(evidence.exit_code) and evidence.exit_code or '?'
    parts[#parts + 1] = ('%s, exit %s'):format(evidence.status or '?', exit_code)
    parts[#parts + 1] = M.tests_summary(evidence.tests)
    parts[#parts + 1] = M.reason(evidence)
    parts[#parts + 1] = M.age(evidence.finished_at)
    lines[#lines + 1] = '  evidence: ' .. table.concat(parts, ' · ')
  else
    lines[#lines + 1] = '  evidence: none recorded for this root yet'
  end
  if type(status.kinds) == 'table' and next(status.kinds) then
    local kinds = {}
    for kind, kind_status in vim.spairs(status.kinds) do
      kinds[#kinds + 1] = ('%s %s'):format(kind, M.label(kind_status) or '?')
    end
    lines[#lines + 1] = '  kinds: ' .. table.concat(kinds, ' · ')
  end
  if type(status.changed_paths) == 'table' and #status.changed_paths > 0 then
    local shown = vim.list_slice(status.changed_paths, 1, 5)
    local more = #status.changed_paths - #shown
    local suffix = more > 0 and (' (+%d more)'):format(more) or ''
    lines[#lines + 1] = '  changed since: ' .. table.concat(shown, ', ') .. suffix
  end
  if type(status.verify_commands) == 'table' and #status.verify_commands > 0 then
    local commands = {}
    for _, command in ipairs(status.verify_commands) do
      if type(command) == 'table' then
        commands[#commands + 1] = ('%s (%s)'):format(command.command or '?', command.kind or '?')
      else
        commands[#commands + 1] = tostring(command)
      end
    end
    lines[#lines + 1] = '  verify commands: ' .. table.concat(commands, ', ')
  else
    lines[#lines + 1] = '  verify commands: none declared (see `freshpass facts`)'
  end
  return lines
end

--- One receipt as a line of `:Freshpass log`.
--- @param evidence table
--- @param current_id any id of the evidence the status points at
--- @return string
function M.receipt_line(evidence, current_id)
  local mark = evidence.status == 'passed' and '✓' or '✗'
  local parts = {
    M.clock(evidence.finished_at),
    ('%s %-6s'):format(mark, evidence.status or '?'),
    ('%-8s'):format(evidence.scope or '?'),
    ('%-9s'):format(evidence.kind or '?'),
    evidence.command or evidence.canonical_command or '?',
    ('(exit %s'):format(M.present(evidence.exit_code) and evidence.exit_code or '?')
      .. (M.duration(evidence.duration) and (', ' .. M.duration(evidence.duration)) or '')
      .. (M.tests_summary(evidence.tests) and (', ' .. M.tests_summary(evidence.tests)) or '')
      .. (M.reason(evidence) and (', ' .. M.reason(evidence)) or '')
      .. ')',
  }
  if M.present(current_id) and evidence.id == current_id then
    parts[#parts + 1] = '← current status'
  end
  return table.concat(parts, '  ')
end

return M
