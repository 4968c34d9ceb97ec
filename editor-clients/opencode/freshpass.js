// freshpass for OpenCode: the checks the agent runs with its shell tool become receipts.
//
// Copy this file to `.opencode/plugin/freshpass.js` in the project (or `~/.config/opencode/plugin/`). OpenCode loads
// every exported function of a plugin file; after each `bash` tool call, `tool.execute.after` hands this plugin the
// command (`input.args.command`), the output and the exit code (`output.metadata.exit`, null when the call was
// aborted or timed out), and the plugin passes them to `freshpass hook record`, which records the run when it was
// one of the project's checks (docs/agents.md). A missing `freshpass` records nothing and never fails the tool call.
import { spawn } from "node:child_process";
import path from "node:path";

const started = new Map();

function record(payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn("freshpass", ["hook", "record"], { stdio: ["pipe", "ignore", "ignore"] });
    } catch {
      resolve();
      return;
    }
    child.on("error", () => resolve());
    child.on("close", () => resolve());
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export const FreshpassReceipts = async ({ directory }) => ({
  "tool.execute.before": async (input) => {
    if (input.tool === "bash") started.set(input.callID, Date.now());
  },
  "tool.execute.after": async (input, output) => {
    if (input.tool !== "bash") return;
    const began = started.get(input.callID);
    started.delete(input.callID);
    const args = input.args ?? {};
    const metadata = output?.metadata ?? {};
    if (typeof args.command !== "string") return;
    await record({
      agent: "opencode",
      session_id: `opencode:${input.sessionID}`,
      cwd: typeof args.workdir === "string" && args.workdir ? path.resolve(directory, args.workdir) : directory,
      command: args.command,
      exit_code: typeof metadata.exit === "number" ? metadata.exit : null,
      output: typeof metadata.output === "string" ? metadata.output : String(output?.output ?? ""),
      duration_ms: began === undefined ? null : Date.now() - began,
    });
  },
});
