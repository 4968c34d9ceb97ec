import * as vscode from "vscode";

import type { RecordRunParams, RecordRunResult } from "./protocol";
import { type Confidence, OutputTail, plainTerminalText, recordRunDecision } from "./terminal";
import { errorText } from "./views";

/** Enough of a terminal command's output for the server to read a test summary from its end. */
const TERMINAL_OUTPUT_LIMIT = 64 * 1024;

/** Forwards commands run in the integrated terminal (shell integration) to the server as `freshpass/recordRun`. */
export class TerminalEvidence implements vscode.Disposable {
  private readonly outputs = new WeakMap<vscode.TerminalShellExecution, { tail: OutputTail; done: Promise<void> }>();
  private readonly disposables: vscode.Disposable[];

  constructor(
    private readonly log: vscode.OutputChannel,
    private readonly send: (params: RecordRunParams) => Promise<RecordRunResult | undefined>,
  ) {
    this.disposables = [
      vscode.window.onDidStartTerminalShellExecution((event) => {
        if (!enabled()) {
          return;
        }
        // The output can only be read from the start; its tail lets the server see "no tests ran" and counts.
        const tail = new OutputTail(TERMINAL_OUTPUT_LIMIT);
        const done = (async () => {
          for await (const chunk of event.execution.read()) {
            tail.append(chunk);
          }
        })().catch(() => undefined);
        this.outputs.set(event.execution, { tail, done });
      }),
      vscode.window.onDidEndTerminalShellExecution((event) => void this.finished(event)),
    ];
  }

  dispose(): void {
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private async finished(event: vscode.TerminalShellExecutionEndEvent): Promise<void> {
    if (!enabled()) {
      return;
    }
    const collected = this.outputs.get(event.execution);
    if (collected) {
      // The stream ends with the command; do not wait forever if the terminal was torn down first.
      await Promise.race([collected.done, new Promise((resolve) => setTimeout(resolve, 2000))]);
    }
    const processId = await event.terminal.processId;
    const decision = recordRunDecision({
      commandLine: event.execution.commandLine.value,
      confidence: confidenceName(event.execution.commandLine.confidence),
      cwd: event.execution.cwd?.fsPath ?? event.shellIntegration.cwd?.fsPath,
      exitCode: event.exitCode,
      output: collected ? plainTerminalText(collected.tail.text()) : undefined,
      sessionId: `vscode-terminal:${vscode.env.sessionId}:${processId ?? event.terminal.name}`,
    });
    if (!decision.send) {
      if (event.execution.commandLine.value.trim() !== "") {
        this.log.appendLine(`Terminal: not recording "${event.execution.commandLine.value}": ${decision.reason}.`);
      }
      return;
    }
    try {
      const result = await this.send(decision.params);
      if (result?.recorded) {
        this.log.appendLine(
          `Terminal: recorded "${decision.params.commandLine}" (${result.status ?? "?"}, ${result.scope ?? "?"}).`,
        );
      }
    } catch (error) {
      this.log.appendLine(`Terminal: the server did not record "${decision.params.commandLine}": ${errorText(error)}`);
    }
  }
}

function enabled(): boolean {
  // No fallback here: VS Code supplies package.json's default.
  return vscode.workspace.getConfiguration("freshpass").get<boolean>("terminalEvidence") === true;
}

function confidenceName(confidence: vscode.TerminalShellExecutionCommandLineConfidence): Confidence {
  switch (confidence) {
    case vscode.TerminalShellExecutionCommandLineConfidence.High:
      return "high";
    case vscode.TerminalShellExecutionCommandLineConfidence.Medium:
      return "medium";
    default:
      return "low";
  }
}
