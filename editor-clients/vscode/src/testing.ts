/**
 * The Testing view's model: one test item per root (or package root) that declares a test check, whose run is that
 * check run through the server (`freshpass.verify`), recorded as a receipt like a lens click. VS Code's Testing
 * view and the chat agent's `runTests` tool both run it through the controller's Run profile. Pure, so it is unit
 * tested without VS Code.
 */
import type { Evidence, RootStatus, VerifyResult } from "./protocol";
import { reasonText } from "./receipts";
import { rootName, testCounts } from "./status";

/** What one test item shows and runs. */
export interface TestEntry {
  /** The root's path: one item per root. */
  id: string;
  root: string;
  /** The approved test command, as the project declares it (`pytest -q`). */
  label: string;
  /** Which root, and where the command runs when not at the root. */
  description: string;
  /** The root-relative file that declares the command, when the declaration names one (`pyproject.toml`). */
  declaredIn: string | undefined;
}

/** The root's primary test check as a test item, or undefined when the root declares none. */
export function testEntry(status: RootStatus): TestEntry | undefined {
  const check = status.verify_commands?.find((command) => command.kind === "test");
  if (!check || !status.root) {
    return undefined;
  }
  const where = check.cwd && check.cwd !== "." ? `${rootName(status.root)} · in ${check.cwd}` : rootName(status.root);
  return {
    id: status.root,
    root: status.root,
    label: check.command,
    description: where,
    declaredIn: declaringFile(check.source),
  };
}

/**
 * `pyproject.toml#tool.pytest.ini_options` → `pyproject.toml`, `Makefile:test` → `Makefile`, `scripts/test` →
 * `scripts/test`. Anything that is not a plain root-relative path gives undefined; the caller still checks that the
 * file exists, since some sources name a convention rather than a file.
 */
export function declaringFile(source: string | undefined): string | undefined {
  const file = (source ?? "").split("#", 1)[0].replace(/:[^/:]*$/, "");
  if (file === "" || /\s/.test(file) || /^([\\/]|[A-Za-z]:)/.test(file) || file.split(/[\\/]/).includes("..")) {
    return undefined;
  }
  return file;
}

export type RunState = "passed" | "failed" | "errored";

export interface RunOutcome {
  state: RunState;
  /** For a failure or an error: what went wrong, with the end of the output. */
  message: string | undefined;
  durationMs: number | undefined;
}

const MESSAGE_TAIL_LINES = 40;

/** The Testing view's result of one `freshpass.verify` answer. */
export function runOutcome(result: VerifyResult | null | undefined): RunOutcome {
  const evidence = result?.evidence ?? undefined;
  if (!result) {
    const message = "freshpass did not run the check (see the freshpass output channel).";
    return { state: "errored", message, durationMs: undefined };
  }
  if (!evidence) {
    // The run happened but left no receipt (the ledger could not be written, or the line did not classify).
    const exit = typeof result.exitCode === "number" ? `exit ${result.exitCode}` : "no exit code";
    return {
      state: "errored",
      message: `The run finished (${exit}) but no receipt was recorded: see the freshpass output channel.`,
      durationMs: undefined,
    };
  }
  const durationMs = typeof evidence.duration === "number" ? Math.round(evidence.duration * 1000) : undefined;
  if (evidence.status === "passed") {
    return { state: "passed", message: undefined, durationMs };
  }
  return { state: "failed", message: failureMessage(evidence), durationMs };
}

/** `pytest -q failed (exit 1; 1 failed, 2 passed)` and the last lines of the output. */
export function failureMessage(evidence: Evidence): string {
  const command = evidence.command ?? evidence.canonical_command ?? "the test command";
  const details = [
    typeof evidence.exit_code === "number" ? `exit ${evidence.exit_code}` : undefined,
    reasonText(evidence),
    testCounts(evidence),
  ]
    .filter((part) => part)
    .join("; ");
  const head = `${command} ${evidence.status ?? "failed"}${details ? ` (${details})` : ""}`;
  const tail = outputTail(evidence);
  return tail ? `${head}\n\n${tail}` : head;
}

function outputTail(evidence: Evidence): string {
  const output = evidence.output;
  const text = output ? (output.tail || output.head || "") : "";
  const lines = text.replace(/\r\n/g, "\n").trimEnd().split("\n");
  return lines.slice(-MESSAGE_TAIL_LINES).join("\n").trim();
}

/** Output for a TestRun: its terminal wants `\r\n` line ends. */
export function terminalText(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}
