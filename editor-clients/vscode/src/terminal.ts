/**
 * Terminal evidence: a command the user ran in the integrated terminal (seen through VS Code's shell
 * integration) becomes a `freshpass/recordRun` request; the server classifies it by the same rules as
 * `freshpass run`. Pure, so it is unit tested without VS Code.
 */
import type { RecordRunParams } from "./protocol";

/** How sure VS Code is of the command line (TerminalShellExecutionCommandLineConfidence). */
export type Confidence = "low" | "medium" | "high";

export interface FinishedShellExecution {
  commandLine: string;
  confidence: Confidence;
  /** The working directory the command ran in, when shell integration reported it. */
  cwd: string | undefined;
  /** Undefined when the shell did not report one (for example, the terminal was closed mid-command). */
  exitCode: number | undefined;
  output?: string;
  sessionId: string;
}

export type RecordRunDecision = { send: true; params: RecordRunParams } | { send: false; reason: string };

export function recordRunDecision(execution: FinishedShellExecution): RecordRunDecision {
  const commandLine = execution.commandLine.trim();
  if (commandLine === "") {
    return { send: false, reason: "the command line is empty" };
  }
  if (execution.confidence === "low") {
    // Low confidence means VS Code guessed the line from the screen's text; a wrong guess must not become a receipt.
    return { send: false, reason: "the shell did not report the command line, VS Code only guessed it" };
  }
  if (execution.exitCode === undefined) {
    return { send: false, reason: "the shell did not report an exit code" };
  }
  if (!execution.cwd) {
    return { send: false, reason: "the shell did not report the working directory" };
  }
  const params: RecordRunParams = {
    commandLine,
    cwd: execution.cwd,
    exitCode: execution.exitCode,
    sessionId: execution.sessionId,
  };
  if (execution.output !== undefined && execution.output !== "") {
    params.output = execution.output;
  }
  return { send: true, params };
}

// CSI (colours, cursor moves), OSC (titles, shell integration marks, ended by BEL or ST) and single-character escapes.
// eslint-disable-next-line no-control-regex
const ANSI_ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** Terminal output as text: escape sequences removed, `\r\n` as `\n`. */
export function plainTerminalText(raw: string): string {
  return raw.replace(ANSI_ESCAPES, "").replace(/\r\n/g, "\n");
}

/**
 * The last `limit` characters of a stream: the end of a test run's output holds its summary ("3 passed",
 * "no tests ran"), and a long run must not grow memory without bound.
 */
export class OutputTail {
  private chunks: string[] = [];
  private length = 0;

  constructor(private readonly limit: number) {}

  append(text: string): void {
    this.chunks.push(text);
    this.length += text.length;
    if (this.length > this.limit * 2) {
      this.compact();
    }
  }

  text(): string {
    this.compact();
    return this.chunks.join("");
  }

  private compact(): void {
    const joined = this.chunks.join("");
    const kept = joined.length > this.limit ? joined.slice(joined.length - this.limit) : joined;
    this.chunks = [kept];
    this.length = kept.length;
  }
}
