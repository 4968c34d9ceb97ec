/** The client's own commands (`freshpass.verifyTargeted`, `freshpass.showReceipts`); how a verify's result is told. */
import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";

import { explainUntrusted, type Notices } from "./notices";
import { type ReceiptsResult, SERVER_COMMANDS, type VerifyArguments, type VerifyResult } from "./protocol";
import { notRunText, receiptRow, verifyFailureText } from "./receipts";
import type { RootStatusBar } from "./statusBar";
import { errorText, receiptsArgument } from "./views";

export class Commands {
  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly notices: Notices,
    private readonly statusBar: RootStatusBar,
    private readonly verifyOutput: vscode.OutputChannel,
  ) {}

  /** A verify's result: the status bar follows it; a pass is a passing message, anything else a warning. */
  reportVerifyResult(result: VerifyResult | null | undefined): void {
    if (result?.status?.root) {
      this.statusBar.update(result.status);
    }
    const evidence = result?.evidence;
    if (!evidence) {
      if (result?.message) {
        void vscode.window.showWarningMessage(notRunText(result.command, result.exitCode, result.message));
      }
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

  async verifyTargeted(uri: vscode.Uri | undefined): Promise<void> {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== "file") {
      void vscode.window.showInformationMessage("freshpass: open a file to run its targeted check.");
      return;
    }
    if (!vscode.workspace.isTrusted) {
      await explainUntrusted();
      return;
    }
    if (!this.client()) {
      await this.notices.notRunning();
      return;
    }
    const argument: VerifyArguments = { uri: target.toString(), targeted: true };
    // Through the server command, so the middleware reports the result like a lens click.
    await vscode.commands.executeCommand(SERVER_COMMANDS.verify, argument);
  }

  async showReceipts(): Promise<void> {
    const client = this.client();
    if (!client) {
      await this.notices.notRunning();
      return;
    }
    const active = vscode.window.activeTextEditor?.document.uri;
    const argument = receiptsArgument(
      active?.scheme === "file" ? active.toString() : undefined,
      this.statusBar.activeRoots()[0],
    );
    let result: ReceiptsResult | null;
    try {
      result = (await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_COMMANDS.receipts,
        arguments: [argument],
      })) as ReceiptsResult | null;
    } catch (error) {
      await this.notices.error(`freshpass: cannot read the receipts: ${errorText(error)}`);
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
}
