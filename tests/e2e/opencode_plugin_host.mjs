// Loads an OpenCode plugin file the way OpenCode 1.18.33 loads a local plugin, and replays one `bash` tool call
// through its hooks.
//
// OpenCode imports the file, calls every distinct export (each must be a function) with the plugin input
// ({client, project, directory, worktree, experimental_workspace, serverUrl, $}) and keeps the hooks each returns;
// around a tool call it awaits every plugin's `tool.execute.before(input, {args})` and, after the tool returned,
// `tool.execute.after({tool, sessionID, callID, args}, result)`, where the bash tool's result is
// `{title: command, metadata: {output, exit, truncated}, output}` (`exit` is null when the call was aborted or
// timed out).
//
// Usage: node opencode_plugin_host.mjs PLUGIN_FILE < call.json
//   call.json: {"directory", "sessionID", "callID", "args": {"command", "workdir"?}, "output", "exit"}
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const call = JSON.parse(readFileSync(0, "utf8"));
const mod = await import(pathToFileURL(process.argv[2]).href);
const input = {
  client: {},
  project: { id: "test", worktree: call.directory },
  directory: call.directory,
  worktree: call.directory,
  experimental_workspace: { register() {} },
  serverUrl: new URL("http://localhost:4096"),
  $: undefined,
};
const hooks = [];
for (const plugin of new Set(Object.values(mod))) {
  if (typeof plugin !== "function") throw new TypeError("Plugin export is not a function");
  hooks.push(await plugin(input, {}));
}
const tool = { tool: "bash", sessionID: call.sessionID, callID: call.callID };
for (const hook of hooks) await hook["tool.execute.before"]?.(tool, { args: call.args });
const result = {
  title: call.args.command,
  metadata: { output: call.output, exit: call.exit, truncated: false },
  output: call.output,
};
for (const hook of hooks) await hook["tool.execute.after"]?.({ ...tool, args: call.args }, result);
process.stdout.write(JSON.stringify({ plugins: hooks.length }) + "\n");
