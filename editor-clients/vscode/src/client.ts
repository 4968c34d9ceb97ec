/**
 * The language client: which program serves (`freshpass.server.command`, else the project's or the user's
 * interpreter, else `freshpass` on PATH), what it is told at start (settings, trust, session, interpreter), and the
 * middleware that keeps untrusted workspaces from running anything and reports verify results.
 */
import * as os from "node:os";
import * as vscode from "vscode";
import {
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

import { SERVER_COMMANDS, type VerifyArguments, type VerifyResult } from "./protocol";
import type { PythonSelection } from "./python";
import {
  findExecutable,
  initializationOptions,
  interpreterForRuns,
  missingProgramMessage,
  resolveServerCommand,
} from "./settings";
import { explainUntrusted } from "./notices";
import { errorText } from "./views";

export interface ClientParts {
  log: vscode.OutputChannel;
  sessionId: string;
  python: PythonSelection;
  /** Before a verify runs: the arguments to run it with (the test command chosen once, choose.ts), if other. */
  beforeVerify: (argument: VerifyArguments | undefined) => Promise<VerifyArguments | undefined>;
  /** A verify's result, whichever door (lens, status bar, command) ran it. */
  onVerifyResult: (result: VerifyResult | null | undefined) => void;
  /** A verify the server could not run: the message to show. */
  onVerifyError: (message: string) => void;
}

export type Created =
  | { ok: true; client: LanguageClient; commandLine: string; description: string }
  | { ok: false; problem: string };

export async function createClient(parts: ClientParts): Promise<Created> {
  const trusted = vscode.workspace.isTrusted;
  const folderUri = vscode.workspace.workspaceFolders?.[0]?.uri;
  const folder = folderUri?.fsPath;
  const configuration = vscode.workspace.getConfiguration("freshpass");
  const commandSetting = configuration.inspect<unknown>("server.command");
  const interpreter = vscode.workspace.getConfiguration("python").inspect<string>("defaultInterpreterPath");
  // In an untrusted workspace its own settings must not choose a program to run: only the user's value counts.
  const defaultInterpreterPath = trusted
    ? (interpreter?.workspaceFolderValue ?? interpreter?.workspaceValue ?? interpreter?.globalValue)
    : interpreter?.globalValue;
  const command = resolveServerCommand({
    configured: configuration.get<unknown>("server.command"),
    explicitlySet:
      commandSetting?.globalValue !== undefined ||
      commandSetting?.workspaceValue !== undefined ||
      commandSetting?.workspaceFolderValue !== undefined,
    pythonInterpreter: defaultInterpreterPath,
    workspaceFolder: folder,
    home: os.homedir(),
  });
  if (!command.ok) {
    return { ok: false, problem: `freshpass: cannot start the language server: ${command.problem}` };
  }
  const program = findExecutable(command.program, process.env.PATH);
  if (!program) {
    return { ok: false, problem: missingProgramMessage(command) };
  }
  // In an untrusted workspace nothing runs; its own settings must not name an interpreter either.
  const pythonInterpreter = interpreterForRuns({
    selected: trusted ? await parts.python.interpreter(folderUri) : undefined,
    defaultInterpreterPath,
  });
  const serverOptions: ServerOptions = {
    command: program,
    args: command.args,
    transport: TransportKind.stdio,
    options: folder ? { cwd: folder } : {},
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }],
    outputChannel: parts.log,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: initializationOptions(configuration, {
      trusted,
      sessionId: parts.sessionId,
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
          const chosen = await parts.beforeVerify(args[0] as VerifyArguments | undefined);
          const result = (await next(name, chosen ? [chosen] : args)) as VerifyResult | null | undefined;
          parts.onVerifyResult(result);
          return result;
        } catch (error) {
          parts.onVerifyError(`freshpass: verify did not run: ${errorText(error)}`);
          return undefined;
        }
      },
    },
  };
  const client = new LanguageClient("freshpass", "freshpass", serverOptions, clientOptions);
  const commandLine = [program, ...command.args].join(" ");
  const python = pythonInterpreter ? `, Python for runs: ${pythonInterpreter}` : "";
  return { ok: true, client, commandLine, description: `${commandLine} (trusted workspace: ${trusted}${python})` };
}
