/** Receipts (`freshpass.receipts`) as quick pick rows. Pure, so it is unit tested without VS Code. */
import type { Evidence } from "./protocol";
import { STATE_SYMBOLS, formatAge, testCounts } from "./status";

export interface ReceiptRow {
  label: string;
  description: string;
  detail: string;
  evidence: Evidence;
}

export function receiptRow(evidence: Evidence, now: Date): ReceiptRow {
  const passed = evidence.status === "passed";
  const symbol = passed
    ? evidence.scope === "full"
      ? STATE_SYMBOLS.full
      : STATE_SYMBOLS.targeted
    : evidence.status === "failed"
      ? STATE_SYMBOLS.failed
      : STATE_SYMBOLS.unverified;
  const label = [`${symbol} ${evidence.status ?? "unknown"}`, evidence.scope, evidence.kind]
    .filter((part) => part)
    .join(" · ");
  const detail = [
    formatAge(evidence.finished_at, now),
    typeof evidence.exit_code === "number" ? `exit ${evidence.exit_code}` : undefined,
    testCounts(evidence),
    reasonText(evidence),
    typeof evidence.duration === "number" ? formatDuration(evidence.duration) : undefined,
    evidence.session ? `session ${evidence.session}` : undefined,
  ]
    .filter((part) => part)
    .join(" · ");
  return { label, description: evidence.command ?? evidence.canonical_command ?? "", detail, evidence };
}

/** Seconds as `850 ms`, `4.2 s`, `3 min 5 s`. */
export function formatDuration(seconds: number): string {
  if (seconds < 1) {
    return `${Math.round(seconds * 1000)} ms`;
  }
  if (seconds < 60) {
    return `${seconds.toFixed(1)} s`;
  }
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/**
 * The receipt's reason without its exit code, which is shown beside it: receipts recorded before the reasons dropped
 * it say `command not found (exit 127)`, and `freshpass verify`'s said `exit code 1`.
 */
export function reasonText(evidence: Evidence): string | undefined {
  const reason = evidence.reason;
  if (!reason) {
    return undefined;
  }
  const code = evidence.exit_code;
  if (typeof code !== "number") {
    return reason;
  }
  if (reason === `exit code ${code}`) {
    return undefined;
  }
  const suffix = ` (exit ${code})`;
  return reason.endsWith(suffix) ? reason.slice(0, -suffix.length) : reason;
}

/**
 * The warning after a verify that did not pass, with the exit code said once: `freshpass: pytest -q failed (exit
 * 127): <why>`. `message` is the server's explanation (which program was not found, what fixes it); else the
 * receipt's reason (older receipts carried the code in it too: `command not found (exit 127)`).
 */
/** A run that recorded nothing because its program never started (exit 127): what to tell the person. */
export function notRunText(command: string | undefined, exitCode: number | null | undefined, message: string): string {
  const exit = typeof exitCode === "number" ? ` (exit ${exitCode})` : "";
  return `freshpass: ${command ?? "verify"} did not run${exit}: ${message}; nothing was recorded`;
}

export function verifyFailureText(evidence: Evidence, message?: string | null): string {
  const command = evidence.command ?? evidence.canonical_command ?? "verify";
  const code = evidence.exit_code;
  const exit = typeof code === "number" ? ` (exit ${code})` : "";
  const why = message || reasonText(evidence) || "";
  return `freshpass: ${command} ${evidence.status ?? "failed"}${exit}${why ? `: ${why}` : ""}`;
}
