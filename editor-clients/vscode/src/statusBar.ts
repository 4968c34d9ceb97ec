/** One status bar item per root; the roots of the visible files are the active ones and the only ones shown. */
import * as vscode from "vscode";

import { type RootStatus, SERVER_COMMANDS, type VerifyArguments } from "./protocol";
import { describeStatus } from "./status";
import { shownRoots, statusBackground } from "./views";

export class RootStatusBar implements vscode.Disposable {
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
    return shownRoots(this.items.keys(), this.active);
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

  private render(): void {
    const shown = this.activeRoots();
    const now = new Date();
    for (const [root, { item, status }] of this.items) {
      if (!shown.includes(root)) {
        item.hide();
        continue;
      }
      const display = describeStatus(status, { now, showRootName: shown.length > 1 });
      item.text = display.text;
      item.tooltip = display.tooltip;
      const background = statusBackground(display.state);
      item.backgroundColor = background ? new vscode.ThemeColor(background) : undefined;
      const argument: VerifyArguments = { root };
      item.command = { title: "Verify", command: SERVER_COMMANDS.verify, arguments: [argument] };
      item.accessibilityInformation = { label: `freshpass ${display.state}: ${root}` };
      item.show();
    }
  }
}
