/**
 * The VS Code client of the freshpass language server. It stays thin: the server computes statuses, lenses and
 * diagnostics and runs verify commands; this client starts the server, shows one status bar item per active root,
 * lists each root's test check in the Testing view (where the chat agent's `runTests` tool finds it too), streams
 * verify output, forwards terminal runs as evidence, and keeps untrusted workspaces from running anything.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";

import { type ChooseHost, TestCommandChooser } from "./choose";
import {
  type CandidatesResult,
  CLIENT_COMMANDS,
  type ChooseResult,
  METHODS,
  type OutputParams,
  type ReceiptsResult,
  type RecordRunParams,
  type RecordRunResult,
  type RootStatus,
  SERVER_COMMANDS,
  type VerifyArguments,
  type VerifyResult,
} from "./protocol";
import { receiptRow, verifyFailureText } from "./receipts";
import {
  findExecutable,
  initializationOptions,
  interpreterForRuns,
  missingProgramMessage,
  resolveServerCommand,
} from "./settings";
import { describeStatus } from "./status";
import { type Confidence, OutputTail, plainTerminalText, recordRunDecision } from "./terminal";
import { runOutcome, terminalText, testEntry } from "./testing";

const SHOW_LOGS = "Show logs";
const OPEN_SETTINGS = "Open settings";
/** Enough of a terminal command's output for the server to read a test summary from its end. */
const TERMINAL_OUTPUT_LIMIT = 64 * 1024;
/** How long the Python extension may take to activate and name its interpreter before the server starts without. */
const PYTHON_EXTENSION_TIMEOUT = 5000;

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

/** The part of the Python extension's public API this client reads (ms-python.python, `environments`). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class FreshpassExtension implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** The server's stderr and the client's own log. */
  private readonly log = vscode.window.createOutputChannel("freshpass");
  /** Live output of verify runs (`freshpass/output`). */
  private readonly verifyOutput = vscode.window.createOutputChannel("freshpass: verify output");
  private readonly statusBar = new RootStatusBar();
  private readonly tests: TestingView;
  // The extension host's PID tells windows apart where env.sessionId does not (code-server gives every window the same).
  private readonly sessionId = `vscode:${vscode.env.sessionId}:${process.pid}`;
  private readonly disposables: vscode.Disposable[] = [];
  private lastRunId: string | undefined;
  /** Serialises start, stop and restart so two restarts never race over one client. */
  private lifecycle: Promise<void> = Promise.resolve();
  /** Restarts the server when the Python extension's selected interpreter changes (subscribed once). */
  private pythonSelection: vscode.Disposable | undefined;
  /** Asks once which command runs a root's full tests, when detection is unsure (choose.ts). */
  private readonly chooser: TestCommandChooser;

  constructor(private readonly memory: vscode.Memento) {
    this.chooser = new TestCommandChooser(this.chooseHost());
    const terminalEvidence = new TerminalEvidence(this.log, (params) => this.recordRun(params));
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
      terminalEvidence,
      vscode.commands.registerCommand(CLIENT_COMMANDS.verifyTargeted, (uri?: vscode.Uri) => this.verifyTargeted(uri)),
      vscode.commands.registerCommand(CLIENT_COMMANDS.showReceipts, () => this.showReceipts()),
      vscode.commands.registerCommand(CLIENT_COMMANDS.restart, () => this.restart()),
      vscode.commands.registerCommand(CLIENT_COMMANDS.chooseTestCommand, () => this.chooseTestCommand()),
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
    this.pythonSelection?.dispose();
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
  }

  private serialised(step: () => Promise<void>): Promise<void> {
    this.lifecycle = this.lifecycle.then(step, step);
    return this.lifecycle;
  }

  private async startClient(): Promise<void> {
    const trusted = vscode.workspace.isTrusted;
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const configuration = vscode.workspace.getConfiguration("freshpass");
    const commandSetting = configuration.inspect<unknown>("server.command");
    const interpreter = vscode.workspace.getConfiguration("python").inspect<string>("defaultInterpreterPath");
    const command = resolveServerCommand({
      configured: configuration.get<unknown>("server.command"),
      explicitlySet:
        commandSetting?.globalValue !== undefined ||
        commandSetting?.workspaceValue !== undefined ||
        commandSetting?.workspaceFolderValue !== undefined,
      // In an untrusted workspace its own settings must not choose a program to run: only the user's value counts.
      pythonInterpreter: trusted
        ? (interpreter?.workspaceFolderValue ?? interpreter?.workspaceValue ?? interpreter?.globalValue)
        : interpreter?.globalValue,
      workspaceFolder: folder,
      home: os.homedir(),
    });
    if (!command.ok) {
      this.reportStartProblem(`freshpass: cannot start the language server: ${command.problem}`);
      return;
    }
    const program = findExecutable(command.program, process.env.PATH);
    if (!program) {
      this.reportStartProblem(missingProgramMessage(command));
      return;
    }
    // In an untrusted workspace nothing runs; its own settings must not name an interpreter either.
    const pythonInterpreter = interpreterForRuns({
      selected: trusted ? await this.selectedPythonInterpreter(vscode.workspace.workspaceFolders?.[0]?.uri) : undefined,
      defaultInterpreterPath: trusted
        ? (interpreter?.workspaceFolderValue ?? interpreter?.workspaceValue ?? interpreter?.globalValue)
        : interpreter?.globalValue,
    });
    const serverOptions: ServerOptions = {
      command: program,
      args: command.args,
      transport: TransportKind.stdio,
      options: folder ? { cwd: folder } : {},
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }],
      outputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: initializationOptions(configuration, {
        trusted,
        sessionId: this.sessionId,
        pythonInterpreter,
      }),
      synchronize: { configurationSection: "freshpass" },
      middleware: {
        executeCommand: async (name, args, next) => {
          if (name === SERVER_COMMANDS.verify && !vscode.workspace.isTrusted) {
            void explainUntrusted();
            return undefined;
          }
          if (name !== SERVER_COMMANDS.verify) {
            return next(name, args) as Promise<unknown>;
          }
          try {
            const chosen = await this.chooser.beforeRun(args[0] as VerifyArguments | undefined);
            const result = (await next(name, chosen ? [chosen] : args)) as
              | VerifyResult
              | null
              | undefined;
            this.reportVerifyResult(result);
            return result;
          } catch (error) {
            void this.showError(`freshpass: verify did not run: ${errorText(error)}`);
            return undefined;
          }
        },
      },
    };
    const client = new LanguageClient("freshpass", "freshpass", serverOptions, clientOptions);
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
    const commandLine = [program, ...command.args].join(" ");
    const python = pythonInterpreter ? `, Python for runs: ${pythonInterpreter}` : "";
    this.log.appendLine(`Starting ${commandLine} (trusted workspace: ${trusted}${python}).`);
    try {
      await client.start();
    } catch (error) {
      this.reportStartProblem(`freshpass: the language server (${commandLine}) did not start: ${errorText(error)}`);
      return;
    }
    await this.refreshStatuses();
  }

  /**
   * The interpreter the Python extension (ms-python.python) selected for `folder`, through its public API, when it
   * is installed; a change of selection restarts the server so that runs use the new environment.
   */
  private async selectedPythonInterpreter(folder: vscode.Uri | undefined): Promise<string | undefined> {
    const python = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
    if (!python) {
      return undefined;
    }
    try {
      const api = python.isActive
        ? python.exports
        : await Promise.race([
            python.activate(),
            new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), PYTHON_EXTENSION_TIMEOUT)),
          ]);
      const environments = api?.environments;
      if (environments && !this.pythonSelection) {
        this.pythonSelection = environments.onDidChangeActiveEnvironmentPath(() => {
          this.log.appendLine("The Python extension selected another interpreter: restarting the server.");
          void this.restart();
        });
      }
      return environments?.getActiveEnvironmentPath(folder)?.path;
    } catch (error) {
      this.log.appendLine(`The Python extension did not name its interpreter: ${errorText(error)}`);
      return undefined;
    }
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

  private reportStartProblem(message: string): void {
    this.log.appendLine(message);
    void vscode.window.showErrorMessage(message, SHOW_LOGS, OPEN_SETTINGS).then((choice) => {
      if (choice === SHOW_LOGS) {
        this.log.show(true);
      } else if (choice === OPEN_SETTINGS) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "freshpass.server.command");
      }
    });
  }

  private async showError(message: string): Promise<void> {
    this.log.appendLine(message);
    if ((await vscode.window.showErrorMessage(message, SHOW_LOGS)) === SHOW_LOGS) {
      this.log.show(true);
    }
  }

  private async notRunning(): Promise<void> {
    const restart = "Restart";
    const choice = await vscode.window.showWarningMessage(
      "freshpass: the language server is not running.",
      SHOW_LOGS,
      restart,
    );
    if (choice === SHOW_LOGS) {
      this.log.show(true);
    } else if (choice === restart) {
      await this.restart();
    }
  }

  /** Requests the status of each visible file's root, so the status bar shows the roots being worked on. */
  private async refreshStatuses(): Promise<void> {
    const client = this.runningClient();
    if (!client) {
      return;
    }
    const fileUris = vscode.window.visibleTextEditors
      .map((editor) => editor.document.uri)
      .filter((uri) => uri.scheme === "file");
    const targets =
      fileUris.length > 0 ? fileUris : (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri);
    // The workspace folders' roots are asked for too, so the Testing view lists them before any file is open.
    const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri);
    const roots = new Set<string>();
    const visible = new Set(targets.map((target) => target.toString()));
    for (const uri of new Set([...visible, ...folders.map((folder) => folder.toString())])) {
      try {
        const status = await client.sendRequest<RootStatus | null>(METHODS.status, { uri });
        if (status?.root) {
          this.showStatus(status);
          if (visible.has(uri)) {
            roots.add(status.root);
          }
        }
      } catch (error) {
        // A file outside every root has no status; that is not worth a notification.
        this.log.appendLine(`No status for ${uri}: ${errorText(error)}`);
      }
    }
    if (fileUris.length > 0) {
      this.statusBar.setActiveRoots(roots);
    }
  }

  private showStatus(status: RootStatus): void {
    this.statusBar.update(status);
    this.tests.update(status);
  }

  private appendVerifyOutput(params: OutputParams): void {
    this.tests.output(params);
    const runId = String(params.runId);
    if (runId !== this.lastRunId) {
      this.lastRunId = runId;
      this.verifyOutput.appendLine(`\n▶ ${params.command}    (${params.root})`);
    }
    this.verifyOutput.append(params.text);
  }

  private reportVerifyResult(result: VerifyResult | null | undefined): void {
    if (result?.status?.root) {
      this.statusBar.update(result.status);
    }
    const evidence = result?.evidence;
    if (!evidence) {
      return;
    }
    const command = evidence.command ?? evidence.canonical_command ?? "verify";
    if (evidence.status === "passed") {
      vscode.window.setStatusBarMessage(`freshpass: ${command} passed`, 5000);
      return;
    }
    const showOutput = "Show output";
    void vscode.window
      .showWarningMessage(verifyFailureText(evidence, result?.message), showOutput)
      .then((choice) => {
        if (choice === showOutput) {
          this.verifyOutput.show(true);
        }
      });
  }

  private async verifyTargeted(uri: vscode.Uri | undefined): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== "file") {
      void vscode.window.showInformationMessage("freshpass: open a file to run its targeted check.");
      return;
    }
    if (!vscode.workspace.isTrusted) {
      await explainUntrusted();
      return;
    }
    if (!this.runningClient()) {
      await this.notRunning();
      return;
    }
    const argument: VerifyArguments = { uri: target.toString(), targeted: true };
    // Through the server command, so the middleware reports the result like a lens click.
    await vscode.commands.executeCommand(SERVER_COMMANDS.verify, argument);
  }

  /** The editor's side of choosing a test command: quick pick, server calls, workspace memory. */
  private chooseHost(): ChooseHost {
    const key = (root: string): string => `freshpass.askedTestCommand:${root}`;
    const client = (): LanguageClient => {
      const running = this.runningClient();
      if (!running) {
        throw new Error("the language server is not running");
      }
      return running;
    };
    return {
      candidates: (target, kind) =>
        client().sendRequest<CandidatesResult | undefined>(METHODS.candidates, { ...target, kind }),
      choose: async (argument) =>
        (await client().sendRequest(ExecuteCommandRequest.type, {
          command: SERVER_COMMANDS.choose,
          arguments: [argument],
        })) as ChooseResult,
      pick: (items, title, placeholder) =>
        Promise.resolve(
          vscode.window.showQuickPick(items, { title, placeHolder: placeholder, matchOnDescription: true }),
        ),
      asked: (root) => this.memory.get<boolean>(key(root)) === true,
      remember: (root) => Promise.resolve(this.memory.update(key(root), true)),
      showStatus: (status) => this.showStatus(status),
      error: (message) => void this.showError(message),
      log: (message) => this.log.appendLine(message),
    };
  }

  private async chooseTestCommand(): Promise<void> {
    if (!this.runningClient()) {
      await this.notRunning();
      return;
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    const root = this.statusBar.activeRoots()[0];
    const target = active?.scheme === "file" ? { uri: active.toString() } : root ? { root } : undefined;
    if (!target) {
      void vscode.window.showInformationMessage("freshpass: open a file of the project to choose its test command.");
      return;
    }
    try {
      await this.chooser.chooseNow(target);
    } catch (error) {
      await this.showError(`freshpass: cannot list the test commands: ${errorText(error)}`);
    }
  }

  private async showReceipts(): Promise<void> {
    const client = this.runningClient();
    if (!client) {
      await this.notRunning();
      return;
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    const root = this.statusBar.activeRoots()[0];
    const argument =
      active?.scheme === "file" ? { uri: active.toString(), limit: 50 } : root ? { root, limit: 50 } : { limit: 50 };
    let result: ReceiptsResult | null;
    try {
      result = (await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_COMMANDS.receipts,
        arguments: [argument],
      })) as ReceiptsResult | null;
    } catch (error) {
      await this.showError(`freshpass: cannot read the receipts: ${errorText(error)}`);
      return;
    }
    if (!result || result.receipts.length === 0) {
      void vscode.window.showInformationMessage(
        `freshpass: no receipts yet${result?.root ? ` for ${result.root}` : ""}.`,
      );
      return;
    }
    const now = new Date();
    const picked = await vscode.window.showQuickPick(
      result.receipts.map((evidence) => receiptRow(evidence, now)),
      { title: `freshpass receipts · ${result.root}`, matchOnDescription: true, matchOnDetail: true },
    );
    if (picked) {
      const document = await vscode.workspace.openTextDocument({
        language: "json",
        content: JSON.stringify(picked.evidence, null, 2),
      });
      await vscode.window.showTextDocument(document, { preview: true });
    }
  }

  private async recordRun(params: RecordRunParams): Promise<RecordRunResult | undefined> {
    const client = this.runningClient();
    if (!client) {
      return undefined;
    }
    return client.sendRequest<RecordRunResult>(METHODS.recordRun, params);
  }
}

async function explainUntrusted(): Promise<void> {
  const manage = "Manage Workspace Trust";
  const choice = await vscode.window.showWarningMessage(
    "freshpass: this workspace is not trusted, so freshpass runs none of its commands. " +
      "The status shown comes from receipts already recorded. Trust the workspace to run verify.",
    manage,
  );
  if (choice === manage) {
    await vscode.commands.executeCommand("workbench.trust.manage");
  }
}

/** One status bar item per root; the roots of the visible files are the active ones and the only ones shown. */
class RootStatusBar implements vscode.Disposable {
  private readonly items = new Map<string, { item: vscode.StatusBarItem; status: RootStatus }>();
  /** Undefined until a visible file's root is known: then every known root is shown. */
  private active: Set<string> | undefined;

  update(status: RootStatus): void {
    let entry = this.items.get(status.root);
    if (!entry) {
      const item = vscode.window.createStatusBarItem(
        `freshpass.status.${status.root}`,
        vscode.StatusBarAlignment.Left,
        50,
      );
      item.name = "freshpass status";
      entry = { item, status };
      this.items.set(status.root, entry);
    }
    entry.status = status;
    this.render();
  }

  setActiveRoots(roots: Set<string>): void {
    this.active = roots;
    this.render();
  }

  activeRoots(): string[] {
    return [...this.items.keys()].filter((root) => this.isShown(root));
  }

  clear(): void {
    for (const { item } of this.items.values()) {
      item.dispose();
    }
    this.items.clear();
    this.active = undefined;
  }

  dispose(): void {
    this.clear();
  }

  private isShown(root: string): boolean {
    return this.active === undefined || this.active.size === 0 || this.active.has(root);
  }

  private render(): void {
    const shown = [...this.items.keys()].filter((root) => this.isShown(root));
    const now = new Date();
    for (const [root, { item, status }] of this.items) {
      if (!shown.includes(root)) {
        item.hide();
        continue;
      }
      const display = describeStatus(status, { now, showRootName: shown.length > 1 });
      item.text = display.text;
      item.tooltip = display.tooltip;
      item.backgroundColor =
        display.state === "failed"
          ? new vscode.ThemeColor("statusBarItem.errorBackground")
          : display.state === "unverified"
            ? new vscode.ThemeColor("statusBarItem.warningBackground")
            : undefined;
      const argument: VerifyArguments = { root };
      item.command = { title: "Verify", command: SERVER_COMMANDS.verify, arguments: [argument] };
      item.accessibilityInformation = { label: `freshpass ${display.state}: ${root}` };
      item.show();
    }
  }
}

/**
 * The Testing view: one test item per root that declares a test check (its label is the command), run through the
 * server's `freshpass.verify` — the same run, receipt and status as a lens click. The Run profile is what VS Code's
 * Testing view and the chat agent's `runTests` tool run.
 */
class TestingView implements vscode.Disposable {
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

/** Forwards commands run in the integrated terminal (shell integration) to the server as `freshpass/recordRun`. */
class TerminalEvidence implements vscode.Disposable {
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
