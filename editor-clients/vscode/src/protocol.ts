/**
 * The parts of the freshpass language server's protocol this client uses (docs/architecture.md, "The language
 * server's protocol"). Field names are the server's JSON names, so they are snake_case where the server's are.
 */

/** Commands the server advertises; vscode-languageclient registers them, so this client must not. */
export const SERVER_COMMANDS = {
  verify: "freshpass.verify",
  cancel: "freshpass.cancel",
  receipts: "freshpass.receipts",
  choose: "freshpass.choose",
} as const;

/** The extension's own commands (package.json `contributes.commands`). */
export const CLIENT_COMMANDS = {
  verifyTargeted: "freshpass.verifyTargeted",
  showReceipts: "freshpass.showReceipts",
  restart: "freshpass.restart",
  chooseTestCommand: "freshpass.chooseTestCommand",
} as const;

export const METHODS = {
  statusChanged: "freshpass/statusChanged",
  output: "freshpass/output",
  status: "freshpass/status",
  recordRun: "freshpass/recordRun",
  candidates: "freshpass/candidates",
} as const;

export interface TestCounts {
  passed?: number | null;
  failed?: number | null;
  skipped?: number | null;
}

/** One receipt: a finished run of a recognised command (design §4.2). */
export interface Evidence {
  /** null for a shared receipt (design §4.6), which has no id in this machine's ledger. */
  id?: number | string | null;
  command?: string;
  canonical_command?: string | null;
  kind?: string | null;
  scope?: string | null;
  status?: string | null;
  exit_code?: number | null;
  reason?: string | null;
  finished_at?: string | number | null;
  duration?: number | null;
  session?: string | null;
  tests?: TestCounts | null;
  /** How freshpass knows of the run: watched (it ran it), reported (told afterwards), unconfirmed (never full). */
  observed?: "watched" | "reported" | "unconfirmed" | null;
  /** The bounded output summary: its first and last characters. */
  output?: { head?: string; tail?: string; omitted?: number } | null;
  /** Who ran a shared receipt that counts here (design §4.6). */
  shared?: Provenance | null;
}

/** Who ran a shared receipt and where (design §4.6). */
export interface Provenance {
  actor?: string | null;
  provider?: string | null;
  job_url?: string | null;
  commit?: string | null;
  signer?: string | null;
}

/** A shared receipt of the root's current content (design §4.6): another machine's run, shown apart. */
export interface SharedReceipt {
  command?: string;
  canonical_command?: string | null;
  kind?: string | null;
  scope?: string | null;
  status?: string | null;
  exit_code?: number | null;
  reason?: string | null;
  tests?: TestCounts | null;
  started_at?: string | null;
  finished_at?: string | number | null;
  duration_ms?: number | null;
  actor?: string | null;
  provider?: string | null;
  job_url?: string | null;
  commit?: string | null;
  freshpass?: string | null;
  digest?: string | null;
  signature?: string | null;
  signer?: string | null;
  counted?: boolean;
  why?: string | null;
}

export interface VerifyCommand {
  command: string;
  kind?: string;
  cwd?: string;
  source?: string;
}

/** One kind of check in a status: its newest receipt and whether it covers the content now. */
export interface KindState {
  status: string;
  scope?: string | null;
  fresh: boolean;
  evidence: Evidence;
  /** Both receipts of a flaky result (the same full check on the same content, each outcome once). */
  flaky?: { passed: Evidence; failed: Evidence } | null;
}

/**
 * The status of one root (design §4.5), sent by `freshpass/statusChanged` and returned by `freshpass/status`.
 * docs/status.schema.json is its schema; tests/unit/test_status_schema.py keeps these fields equal to it.
 */
export interface RootStatus {
  root: string;
  status: string;
  scope?: string | null;
  kinds?: Record<string, KindState> | null;
  evidence?: Evidence | null;
  changed_paths?: string[] | null;
  verify_commands?: VerifyCommand[] | null;
  shared?: SharedReceipt[] | null;
  /** `[tool.freshpass] flaky = "pass-counts"`: a flaky kind's pass counts as verified. */
  flaky_counts?: boolean;
}

/** Parameters of `freshpass.verify` (one object in `arguments`). */
export interface VerifyArguments {
  root?: string;
  uri?: string;
  command?: string;
  kind?: string;
  args?: string[];
  targeted?: boolean;
}

export interface VerifyResult {
  evidence?: Evidence | null;
  status?: RootStatus | null;
  recorded?: boolean;
  exitCode?: number | null;
  /** The command line that was run (or, for a program not found, that could not start). */
  command?: string;
  runId?: string;
  /** What a person should read besides the receipt, e.g. which program was not found and what fixes it. */
  message?: string | null;
}

export interface ReceiptsResult {
  root: string;
  receipts: Evidence[];
}

export interface OutputParams {
  root: string;
  runId: string | number;
  command: string;
  /** `freshpass`: freshpass's own lines about the run (what it put first on PATH, why a program was not found). */
  stream: "stdout" | "stderr" | "freshpass";
  text: string;
}

export interface RecordRunParams {
  commandLine: string;
  cwd: string;
  exitCode: number;
  output?: string;
  sessionId?: string;
}

/** `freshpass/recordRun` returns the classification JSON plus whether evidence was recorded. */
export interface RecordRunResult {
  matched?: boolean;
  canonical_command?: string | null;
  scope?: string | null;
  status?: string | null;
  reason?: string | null;
  recorded?: boolean;
}

/** One command a person can choose as a root's check (`freshpass/candidates`). */
export interface ChoiceCandidate {
  command: string;
  cwd: string;
  /** Where it was declared: `Makefile:test`, `.github/workflows/ci.yml#jobs.test.steps[2]`. */
  source: string;
  /** Why detection proposed it (configured, documented, declared, convention, ci), or `narrower`. */
  basis: string;
  /** The check ▶ Run runs today. */
  primary: boolean;
  note?: string;
}

/** `freshpass/candidates` `{root | uri, kind}`: whether to ask, and what to choose from. */
export interface CandidatesResult {
  root: string;
  kind: string;
  /** A close call, or the check rests only on convention or CI: ask once. */
  needs_choice: boolean;
  ambiguous: boolean;
  candidates: ChoiceCandidate[];
}

/** Arguments of `freshpass.choose` (one object in `arguments`). */
export interface ChooseArguments {
  root: string;
  kind: string;
  command: string;
  cwd?: string;
}

/** What `freshpass.choose` wrote, and the root's status after it. */
export interface ChooseResult {
  choice: { kind: string; command: string; cwd: string; file: string; created: boolean; replaced: string[] };
  status: RootStatus;
}
