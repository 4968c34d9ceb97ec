/**
 * Pure decisions behind the client's views (no VS Code API here, so they are unit tested): which roots' status
 * items are shown, which roots a status refresh asks for, what the receipts list is asked for, and when the verify
 * output channel starts a new run's header.
 */

/** The roots shown in the status bar: the roots of the visible files, or every known root while none is known. */
export function shownRoots(known: Iterable<string>, active: ReadonlySet<string> | undefined): string[] {
  return [...known].filter((root) => active === undefined || active.size === 0 || active.has(root));
}

/** The status bar item's background: an error colour for a failure, a warning colour when nothing is verified. */
export type StatusBackground = "statusBarItem.errorBackground" | "statusBarItem.warningBackground";

export function statusBackground(state: string): StatusBackground | undefined {
  return state === "failed"
    ? "statusBarItem.errorBackground"
    : state === "unverified"
      ? "statusBarItem.warningBackground"
      : undefined;
}

export interface StatusTargets {
  /** Every URI whose status is asked for, each once. */
  uris: string[];
  /** The URIs of the visible files (or, with none, of the folders): their roots become the active ones. */
  visible: Set<string>;
  /** Whether the visible targets are files (only then do their roots replace the active set). */
  filesVisible: boolean;
}

/**
 * What a status refresh asks the server for: the visible files' roots (else the folders'), and every folder's root
 * too, so the Testing view lists them before any file is open.
 */
export function statusTargets(visibleFiles: readonly string[], folders: readonly string[]): StatusTargets {
  const targets = visibleFiles.length > 0 ? visibleFiles : folders;
  const visible = new Set(targets);
  return { uris: [...new Set([...visible, ...folders])], visible, filesVisible: visibleFiles.length > 0 };
}

export type ReceiptsArgument = { uri: string; limit: number } | { root: string; limit: number } | { limit: number };

export const RECEIPTS_SHOWN = 50;

/** The receipts to list: the active file's root, else the first shown root, else the server's first root. */
export function receiptsArgument(
  activeFileUri: string | undefined,
  firstShownRoot: string | undefined,
): ReceiptsArgument {
  if (activeFileUri) {
    return { uri: activeFileUri, limit: RECEIPTS_SHOWN };
  }
  return firstShownRoot ? { root: firstShownRoot, limit: RECEIPTS_SHOWN } : { limit: RECEIPTS_SHOWN };
}

/** The verify output channel: a header line when the output of another run begins. */
export class OutputHeaders {
  private lastRunId: string | undefined;

  /** The header to write before `text` of run `runId`, or undefined while the same run goes on. */
  header(runId: string | number, command: string, root: string): string | undefined {
    const id = String(runId);
    if (id === this.lastRunId) {
      return undefined;
    }
    this.lastRunId = id;
    return `\n▶ ${command}    (${root})`;
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
