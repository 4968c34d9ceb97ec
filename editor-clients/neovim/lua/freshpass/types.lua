---@meta
-- The shapes the server sends (design §4.5; docs/status.schema.json is the schema, and
-- tests/unit/test_status_schema.py keeps the fields below equal to it). Annotations only: nothing to require.

--- @class freshpass.Status
--- @field root string absolute path of the root or package root
--- @field status 'passed'|'failed'|'stale'|'unverified'
--- @field scope 'full'|'targeted'|nil the fresh headline receipt's scope
--- @field kinds table<string, freshpass.KindState> per kind of check, its newest receipt
--- @field evidence freshpass.Evidence|nil the headline receipt
--- @field changed_paths string[] root-relative files that differ from what a stale headline ran against
--- @field verify_commands freshpass.VerifyCommand[] the project's checks in rank order

--- @class freshpass.KindState
--- @field status 'passed'|'failed'|'stale'
--- @field scope 'full'|'targeted'|nil
--- @field fresh boolean
--- @field evidence freshpass.Evidence

--- @class freshpass.Evidence
--- @field id integer
--- @field command string
--- @field canonical_command string
--- @field kind string
--- @field scope 'full'|'targeted'
--- @field status 'passed'|'failed'
--- @field exit_code integer|nil
--- @field reason string|nil
--- @field finished_at string UTC ISO 8601
--- @field session string
--- @field tests {passed: integer, failed: integer, skipped: integer}|nil

--- @class freshpass.VerifyCommand
--- @field command string
--- @field kind string
--- @field cwd string
--- @field source string
--- @field origin string
