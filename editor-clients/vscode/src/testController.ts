import * as fs from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";

import {
  type OutputParams,
  type RootStatus,
  SERVER_COMMANDS,
  type VerifyArguments,
  type VerifyResult,
} from "./protocol";
import { runOutcome, terminalText, testEntry } from "./testing";
import { errorText } from "./views";

/**
 * The Testing view: one test item per root that declares a test check (its label is the command), run through the
 * server's `freshpass.verify` — the same run, receipt and status as a lens click. The Run profile is what VS Code's
 * Testing view and the chat agent's `runTests` tool run.
 */
export class TestingView implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController("freshpass", "freshpass");
  /** Root → the run and item its `freshpass/output` goes to while it runs. */
  private readonly active = new Map<string, { run: vscode.TestRun; item: vscode.TestItem }>();

  constructor(
    private readonly log: vscode.OutputChannel,
    private readonly client: () => LanguageClient | undefined,
    private readonly onStatus: (status: RootStatus) => void,
    private readonly refresh: () => Promise<void>,
  ) {
    this.controller.createRunProfile(
      "Run with freshpass",
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token),
      true,
    );
    // The Testing view asks for its items when it is first shown.
    this.controller.resolveHandler = async (item) => {
      if (!item) {
        await this.refresh();
      }
    };
  }

  update(status: RootStatus): void {
    const entry = testEntry(status);
    if (!entry) {
      this.controller.items.delete(status.root);
      return;
    }
    const file = entry.declaredIn ? path.join(entry.root, entry.declaredIn) : undefined;
    const uri = vscode.Uri.file(file && isFile(file) ? file : entry.root);
    let item = this.controller.items.get(entry.id);
    if (!item || item.uri?.fsPath !== uri.fsPath) {
      item = this.controller.createTestItem(entry.id, entry.label, uri);
      this.controller.items.add(item);
    }
    item.label = entry.label;
    item.description = entry.description;
  }

  clear(): void {
    this.controller.items.replace([]);
  }

  output(params: OutputParams): void {
    const active = this.active.get(params.root);
    active?.run.appendOutput(terminalText(params.text), undefined, active.item);
  }

  dispose(): void {
    this.controller.dispose();
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const items: vscode.TestItem[] = [];
    if (request.include) {
      items.push(...request.include);
    } else {
      this.controller.items.forEach((item) => items.push(item));
    }
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    const run = this.controller.createTestRun(request);
    try {
      for (const item of items.filter((candidate) => !excluded.has(candidate.id))) {
        if (token.isCancellationRequested) {
          run.skipped(item);
          continue;
        }
        await this.runItem(run, item, token);
      }
    } finally {
      run.end();
    }
  }

  private async runItem(run: vscode.TestRun, item: vscode.TestItem, token: vscode.CancellationToken): Promise<void> {
    const root = item.id;
    if (!vscode.workspace.isTrusted) {
      run.errored(
        item,
        new vscode.TestMessage("This workspace is not trusted, so freshpass runs none of its commands."),
      );
      return;
    }
    const client = this.client();
    if (!client) {
      run.errored(item, new vscode.TestMessage("The freshpass language server is not running."));
      return;
    }
    run.started(item);
    this.active.set(root, { run, item });
    const cancel = token.onCancellationRequested(() => {
      void client
        .sendRequest(ExecuteCommandRequest.type, { command: SERVER_COMMANDS.cancel, arguments: [{ root }] })
        .catch((error: unknown) => this.log.appendLine(`Testing: cancelling ${root}: ${errorText(error)}`));
    });
    let result: VerifyResult | null;
    try {
      const argument: VerifyArguments = { root, kind: "test" };
      result = (await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_COMMANDS.verify,
        arguments: [argument],
      })) as VerifyResult | null;
    } catch (error) {
      run.errored(item, new vscode.TestMessage(`freshpass did not run the check: ${errorText(error)}`));
      return;
    } finally {
      cancel.dispose();
      this.active.delete(root);
    }
    if (result?.status?.root) {
      this.onStatus(result.status);
    }
    const outcome = runOutcome(result);
    const message = new vscode.TestMessage(outcome.message ?? "");
    if (outcome.state === "passed") {
      run.passed(item, outcome.durationMs);
    } else if (outcome.state === "failed") {
      run.failed(item, message, outcome.durationMs);
    } else {
      run.errored(item, message, outcome.durationMs);
    }
  }
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

