--- Choosing a root's test command once (`:Freshpass choose`, and the first run of a check detection is unsure of).
---
--- When the server says the test check is a close call or rests only on convention or CI (`freshpass/candidates`
--- → `needs_choice`), the first `▶ Run` (or `:Freshpass verify`) asks with `vim.ui.select`: "Which command runs this
--- project's full tests?", listing the candidates and where each comes from. The pick goes through the server's
--- `freshpass.choose`, which writes it to `.freshpass.toml` (or `[tool.freshpass]` in pyproject.toml), and that run
--- runs it. Dismissing runs the detected check. Each root is asked once per Neovim session; `:Freshpass choose` asks
--- again at any time.
local M = {}

M.QUESTION = "Which command runs this project's full tests?"

local BASIS = {
  configured = 'configured for freshpass',
  documented = 'the contributor docs',
  declared = 'declared by the project',
  convention = "the ecosystem's convention",
  ci = 'a CI step',
  narrower = 'runs part of the suite',
}

--- Roots already asked in this session.
--- @type table<string, boolean>
M.asked = {}

--- One line of the selection: the command, why and where it was found, and which one runs now.
--- @param candidate table
--- @return string
function M.format_item(candidate)
  local where = (candidate.cwd and candidate.cwd ~= '.') and (' (in %s)'):format(candidate.cwd) or ''
  local now = candidate.primary and '  ← runs now' or ''
  return ('%s%s  [%s · %s]%s'):format(
    candidate.command,
    where,
    BASIS[candidate.basis] or candidate.basis,
    candidate.source,
    now
  )
end

--- The root or file a verify argument runs the full test check of; nil for targeted runs and other kinds.
--- @param argument table|nil
--- @return table|nil
function M.test_run_target(argument)
  if type(argument) ~= 'table' or argument.targeted or (type(argument.args) == 'table' and #argument.args > 0) then
    return nil
  end
  if argument.kind ~= nil and argument.kind ~= 'test' then
    return nil
  end
  if type(argument.root) == 'string' then
    return { root = argument.root }
  end
  if type(argument.uri) == 'string' then
    return { uri = argument.uri }
  end
  return nil
end

--- @param client vim.lsp.Client
--- @param answer table the `freshpass/candidates` result
--- @param bufnr integer
--- @param on_done fun(candidate: table|nil)
local function ask(client, answer, bufnr, on_done)
  M.asked[answer.root] = true
  vim.ui.select(answer.candidates, { prompt = M.QUESTION, format_item = M.format_item }, function(candidate)
    if not candidate then
      on_done(nil)
      return
    end
    local params = {
      command = 'freshpass.choose',
      arguments = { { root = answer.root, kind = 'test', command = candidate.command, cwd = candidate.cwd } },
    }
    client:request('workspace/executeCommand', params, function(err, result)
      if err then
        vim.notify(
          'freshpass: the test command was not changed: ' .. require('freshpass.client').error_text(err),
          vim.log.levels.ERROR
        )
        on_done(nil)
        return
      end
      if type(result) == 'table' and type(result.status) == 'table' then
        require('freshpass.state').set_status(client.id, result.status)
      end
      local file = type(result) == 'table' and type(result.choice) == 'table' and result.choice.file or 'the config'
      vim.notify(('freshpass: `%s` is now the test command (written to %s)'):format(candidate.command, file))
      on_done(candidate)
    end, bufnr)
  end)
end

--- Before a verify run: ask once when its root's test check needs confirming, then continue with the arguments to
--- run (the chosen command when one was chosen, the original ones otherwise).
--- @param client vim.lsp.Client
--- @param argument table|nil
--- @param bufnr integer
--- @param continue fun(argument: table|nil)
function M.before_run(client, argument, bufnr, continue)
  local target = M.test_run_target(argument)
  if not target then
    return continue(argument)
  end
  client:request('freshpass/candidates', vim.tbl_extend('force', target, { kind = 'test' }), function(err, answer)
    if err or type(answer) ~= 'table' or not answer.needs_choice or M.asked[answer.root] then
      return continue(argument)
    end
    local primary
    for _, candidate in ipairs(answer.candidates or {}) do
      if candidate.primary then
        primary = candidate
      end
    end
    if argument.command ~= nil and (not primary or argument.command ~= primary.command) then
      return continue(argument) -- a lens of another check: the person picked that one
    end
    ask(client, answer, bufnr, function(candidate)
      continue(candidate and { root = answer.root, command = candidate.command } or argument)
    end)
  end, bufnr)
end

--- `:Freshpass choose`: list the test candidates of the current buffer's project and write the one picked.
--- @param bufnr? integer
function M.choose(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local clients = require('freshpass.client')
  local target, problem = clients.target(bufnr)
  if not target then
    vim.notify(problem --[[@as string]], vim.log.levels.ERROR)
    return
  end
  local where = vim.tbl_extend('force', clients.where(target), { kind = 'test' })
  target.client:request('freshpass/candidates', where, function(err, answer)
    if err or type(answer) ~= 'table' then
      vim.notify('freshpass: cannot list the test commands: ' .. clients.error_text(err), vim.log.levels.ERROR)
      return
    end
    if #(answer.candidates or {}) == 0 then
      vim.notify(
        'freshpass: no test command was found to choose from; add one under [tool.freshpass] verify',
        vim.log.levels.WARN
      )
      return
    end
    ask(target.client, answer, bufnr, function(candidate)
      if candidate then
        require('freshpass.codelens').refresh_visible(target.client)
      end
    end)
  end, bufnr)
end

return M
