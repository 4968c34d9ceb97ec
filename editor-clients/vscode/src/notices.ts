/** What the client tells a person: errors with a way to the logs, never a dialog for what the log can say. */
import * as vscode from "vscode";

export const SHOW_LOGS = "Show logs";
const OPEN_SETTINGS = "Open settings";

export class Notices {
  constructor(
    private readonly log: vscode.OutputChannel,
    private readonly restart: () => Promise<void>,
  ) {}

  /** The server could not start: the reason, the logs and the setting that chooses the server. */
  startProblem(message: string): void {
    this.log.appendLine(message);
    void vscode.window.showErrorMessage(message, SHOW_LOGS, OPEN_SETTINGS).then((choice) => {
      if (choice === SHOW_LOGS) {
        this.log.show(true);
      } else if (choice === OPEN_SETTINGS) {
        void vscode.commands.executeCommand("workbench.action.openSettings", "freshpass.server.command");
      }
    });
  }

  async error(message: string): Promise<void> {
    this.log.appendLine(message);
    if ((await vscode.window.showErrorMessage(message, SHOW_LOGS)) === SHOW_LOGS) {
      this.log.show(true);
    }
  }

  async notRunning(): Promise<void> {
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
}

export async function explainUntrusted(): Promise<void> {
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
