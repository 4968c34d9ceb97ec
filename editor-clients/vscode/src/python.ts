/** The interpreter the Python extension (ms-python.python) selected, through its public API, when it is installed. */
import * as vscode from "vscode";

import { errorText } from "./views";

/** How long the Python extension may take to activate and name its interpreter before the server starts without. */
const PYTHON_EXTENSION_TIMEOUT = 5000;

/** The part of the Python extension's public API this client reads (ms-python.python, `environments`). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

export class PythonSelection implements vscode.Disposable {
  /** Subscribed once, the first time the API answers. */
  private subscription: vscode.Disposable | undefined;

  constructor(
    private readonly log: vscode.OutputChannel,
    private readonly onChange: () => void,
  ) {}

  /** The selected interpreter for `folder`; a later change of selection calls `onChange` (the server restarts). */
  async interpreter(folder: vscode.Uri | undefined): Promise<string | undefined> {
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
      if (environments && !this.subscription) {
        this.subscription = environments.onDidChangeActiveEnvironmentPath(() => {
          this.log.appendLine("The Python extension selected another interpreter: restarting the server.");
          this.onChange();
        });
      }
      return environments?.getActiveEnvironmentPath(folder)?.path;
    } catch (error) {
      this.log.appendLine(`The Python extension did not name its interpreter: ${errorText(error)}`);
      return undefined;
    }
  }

  dispose(): void {
    this.subscription?.dispose();
  }
}
