/**
 * The VS Code client of the freshpass language server: activation and wiring. It stays thin: the server computes
 * statuses, lenses and diagnostics and runs verify commands; this client starts the server (client.ts), shows one
 * status bar item per active root (statusBar.ts), lists each root's test check in the Testing view, where the chat
 * agent's `runTests` tool finds it too (testController.ts), streams verify output, forwards terminal runs as
 * evidence (terminalEvidence.ts), and keeps untrusted workspaces from running anything (client.ts, notices.ts).
 */
import * as vscode from "vscode";
import { type LanguageClient, State } from "vscode-languageclient/node";

import { TestCommandChooser } from "./choose";
import { chooseTestCommandNow, createChooseHost } from "./chooseHost";
import { Commands } from "./commands";
import { createClient } from "./client";
import { Notices } from "./notices";
import {
  CLIENT_COMMANDS,
  METHODS,
  type OutputParams,
  type RecordRunParams,
  type RecordRunResult,
  type RootStatus,
} from "./protocol";
import { PythonSelection } from "./python";
import { RootStatusBar } from "./statusBar";
import { TerminalEvidence } from "./terminalEvidence";
import { TestingView } from "./testController";
import { errorText, OutputHeaders, statusTargets } from "./views";

let extension: FreshpassExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extension = new FreshpassExtension(context.workspaceState);
  context.subscriptions.push(extension);
  await extension.start();
}

export async function deactivate(): Promise<void> {
  await extension?.stop();
  extension = undefined;
}

class FreshpassExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** The server's stderr and the client's own log. */
  private readonly log = vscode.window.createOutputChannel("freshpass");
  /** Live output of verify runs (`freshpass/output`). */
  private readonly verifyOutput = vscode.window.createOutputChannel("freshpass: verify output");
  private readonly outputHeaders = new OutputHeaders();
  private readonly statusBar = new RootStatusBar();
  private readonly notices = new Notices(this.log, () => this.restart());
  private readonly python = new PythonSelection(this.log, () => void this.restart());
  private readonly commands = new Commands(
    () => this.runningClient(),
    this.notices,
    this.statusBar,
    this.verifyOutput,
  );
  private readonly tests: TestingView;
  // The extension host's PID tells windows apart where env.sessionId does not (code-server gives every window the same).
  private readonly sessionId = `vscode:${vscode.env.sessionId}:${process.pid}`;
  private readonly disposables: vscode.Disposable[] = [];
  /** Serialises start, stop and restart so two restarts never race over one client. */
  private lifecycle: Promise<void> = Promise.resolve();
  /** Asks once which command runs a root's full tests, when detection is unsure (choose.ts). */
  private readonly chooser: TestCommandChooser;

  constructor(memory: vscode.Memento) {
    this.chooser = new TestCommandChooser(
      createChooseHost({
        memory,
        client: () => this.runningClient(),
        showStatus: (status) => this.showStatus(status),
        error: (message) => void this.notices.error(message),
        log: this.log,
      }),
    );
    this.tests = new TestingView(
      this.log,
      () => this.runningClient(),
      (status) => this.statusBar.update(status),
      () => this.refreshStatuses(),
    );
    this.disposables.push(
      this.log,
      this.verifyOutput,
      this.statusBar,
      this.tests,
      this.python,
      new TerminalEvidence(this.log, (params) => this.recordRun(params)),
      vscode.commands.registerCommand(CLIENT_COMMANDS.verifyTargeted, (uri?: vscode.Uri) =>
        this.commands.verifyTargeted(uri),
      ),
      vscode.commands.registerCommand(CLIENT_COMMANDS.showReceipts, () => this.commands.showReceipts()),
      vscode.commands.registerCommand(CLIENT_COMMANDS.restart, () => this.restart()),
      vscode.commands.registerCommand(CLIENT_COMMANDS.chooseTestCommand, async () =>
        this.runningClient()
          ? chooseTestCommandNow(this.chooser, this.statusBar.activeRoots()[0], (m) => void this.notices.error(m))
          : this.notices.notRunning(),
      ),
      vscode.window.onDidChangeVisibleTextEditors(() => void this.refreshStatuses()),
      vscode.window.onDidChangeActiveTextEditor(() => void this.refreshStatuses()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.appendLine("The workspace is now trusted: restarting the server so it may run verify commands.");
        void this.restart();
      }),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (
          event.affectsConfiguration("freshpass.server.command") ||
          event.affectsConfiguration("python.defaultInterpreterPath")
        ) {
          this.log.appendLine("The server command changed: restarting the server.");
          void this.restart();
        }
      }),
    );
  }

  start(): Promise<void> {
    return this.serialised(() => this.startClient());
  }

  stop(): Promise<void> {
    return this.serialised(() => this.stopClient());
  }

  restart(): Promise<void> {
    return this.serialised(async () => {
      await this.stopClient();
      await this.startClient();
    });
  }

  dispose(): void {
    void this.stop();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private serialised(step: () => Promise<void>): Promise<void> {
    this.lifecycle = this.lifecycle.then(step, step);
    return this.lifecycle;
  }

  private async startClient(): Promise<void> {
    const created = await createClient({
      log: this.log,
      sessionId: this.sessionId,
      python: this.python,
      beforeVerify: (argument) => this.chooser.beforeRun(argument),
      onVerifyResult: (result) => this.commands.reportVerifyResult(result),
      onVerifyError: (message) => void this.notices.error(message),
    });
    if (!created.ok) {
      this.notices.startProblem(created.problem);
      return;
    }
    const client = created.client;
    client.onNotification(METHODS.statusChanged, (status: RootStatus) => this.showStatus(status));
    client.onNotification(METHODS.output, (params: OutputParams) => this.appendVerifyOutput(params));
    client.onDidChangeState((change) => {
      // Hides the server's commands from the palette while there is no server to run them.
      void vscode.commands.executeCommand("setContext", "freshpass.serverRunning", change.newState === State.Running);
      if (change.newState === State.Stopped) {
        // Statuses are only live while the server runs; a stale ✓ would be worse than none.
        this.statusBar.clear();
        this.tests.clear();
      }
    });
    this.client = client;
    this.log.appendLine(`Starting ${created.description}.`);
    try {
      await client.start();
    } catch (error) {
      this.notices.startProblem(
        `freshpass: the language server (${created.commandLine}) did not start: ${errorText(error)}`,
      );
      return;
    }
    await this.refreshStatuses();
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.statusBar.clear();
    this.tests.clear();
    if (client) {
      try {
        await client.dispose(5000);
      } catch (error) {
        this.log.appendLine(`Stopping the server: ${errorText(error)}`);
      }
    }
  }

  private runningClient(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  /** Requests the status of each visible file's root, so the status bar shows the roots being worked on. */
  private async refreshStatuses(): Promise<void> {
    const client = this.runningClient();
    if (!client) {
      return;
    }
    const targets = statusTargets(
      vscode.window.visibleTextEditors
        .map((editor) => editor.document.uri)
        .filter((uri) => uri.scheme === "file")
        .map((uri) => uri.toString()),
      (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.toString()),
    );
    const roots = new Set<string>();
    for (const uri of targets.uris) {
      try {
        const status = await client.sendRequest<RootStatus | null>(METHODS.status, { uri });
        if (status?.root) {
          this.showStatus(status);
          if (targets.visible.has(uri)) {
            roots.add(status.root);
          }
        }
      } catch (error) {
        // A file outside every root has no status; that is not worth a notification.
        this.log.appendLine(`No status for ${uri}: ${errorText(error)}`);
      }
    }
    if (targets.filesVisible) {
      this.statusBar.setActiveRoots(roots);
    }
  }

  private showStatus(status: RootStatus): void {
    this.statusBar.update(status);
    this.tests.update(status);
  }

  private appendVerifyOutput(params: OutputParams): void {
    this.tests.output(params);
    const header = this.outputHeaders.header(params.runId, params.command, params.root);
    if (header !== undefined) {
      this.verifyOutput.appendLine(header);
    }
    this.verifyOutput.append(params.text);
  }

  private async recordRun(params: RecordRunParams): Promise<RecordRunResult | undefined> {
    const client = this.runningClient();
    if (!client) {
      return undefined;
    }
    return client.sendRequest<RecordRunResult>(METHODS.recordRun, params);
  }
}
