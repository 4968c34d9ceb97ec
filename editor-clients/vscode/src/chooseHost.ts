/**
 * The editor's side of choosing a root's test command once (choose.ts holds the decisions): the quick pick, the
 * server's `freshpass/candidates` and `freshpass.choose`, and the workspace memory of which roots were asked.
 */
import * as vscode from "vscode";
import { ExecuteCommandRequest, type LanguageClient } from "vscode-languageclient/node";

import type { ChooseHost } from "./choose";
import { type CandidatesResult, type ChooseResult, METHODS, type RootStatus, SERVER_COMMANDS } from "./protocol";

export interface ChooseHostParts {
  memory: vscode.Memento;
  client: () => LanguageClient | undefined;
  showStatus: (status: RootStatus) => void;
  error: (message: string) => void;
  log: vscode.OutputChannel;
}

export function createChooseHost(parts: ChooseHostParts): ChooseHost {
  const key = (root: string): string => `freshpass.askedTestCommand:${root}`;
  const client = (): LanguageClient => {
    const running = parts.client();
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
      Promise.resolve(vscode.window.showQuickPick(items, { title, placeHolder: placeholder, matchOnDescription: true })),
    asked: (root) => parts.memory.get<boolean>(key(root)) === true,
    remember: (root) => Promise.resolve(parts.memory.update(key(root), true)),
    showStatus: parts.showStatus,
    error: parts.error,
    log: (message) => parts.log.appendLine(message),
  };
}

/** `freshpass: Choose the test command`: asks now, for the active file's root (or the first active root). */
export async function chooseTestCommandNow(
  chooser: { chooseNow: (target: { uri?: string; root?: string }) => Promise<unknown> },
  activeRoot: string | undefined,
  error: (message: string) => void,
): Promise<void> {
  const active = vscode.window.activeTextEditor?.document.uri;
  const target = active?.scheme === "file" ? { uri: active.toString() } : activeRoot ? { root: activeRoot } : undefined;
  if (!target) {
    void vscode.window.showInformationMessage("freshpass: open a file of the project to choose its test command.");
    return;
  }
  try {
    await chooser.chooseNow(target);
  } catch (thrown) {
    error(`freshpass: cannot list the test commands: ${thrown instanceof Error ? thrown.message : String(thrown)}`);
  }
}
