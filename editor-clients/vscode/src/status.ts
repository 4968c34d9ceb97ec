/**
 * What a root's status looks like to a person: the four states an editor shows (design §1: a fresh pass is
 * `full` or `targeted`, a fresh failure is `failed`, anything not fresh is `unverified`). Pure, so it is unit
 * tested without VS Code.
 */
import type { Evidence, RootStatus, SharedReceipt } from "./protocol";

export type DisplayState = "full" | "targeted" | "unverified" | "failed" | "flaky" | "unchecked";

export const STATE_SYMBOLS: Record<DisplayState, string> = {
  full: "✓",
  targeted: "◐",
  unverified: "⚠",
  failed: "✗",
  flaky: "≈",
  unchecked: "○",
};

export interface StatusDisplay {
  state: DisplayState;
  /** Status bar text, e.g. `✓ full`. */
  text: string;
  /** Plain-text tooltip, one fact per line. */
  tooltip: string;
}

export function displayState(status: RootStatus): DisplayState {
  switch (status.status) {
    case "passed":
      return status.scope === "full" ? "full" : "targeted";
    case "failed":
      return "failed";
    case "flaky":
      return "flaky";
    case "unchecked":
      // Restricted Mode: freshpass runs nothing, not even git, so freshness is not checked (an accusation of nothing).
      return "unchecked";
    default:
      // `unverified`, `stale`, and any value this client does not know: nothing fresh vouches for the content.
      return "unverified";
  }
}

/** The last path component, for telling roots apart when several are shown. */
export function rootName(root: string): string {
  const trimmed = root.replace(/[\\/]+$/, "");
  const parts = trimmed.split(/[\\/]/);
  return parts[parts.length - 1] || trimmed || root;
}

export function describeStatus(
  status: RootStatus,
  options: { now: Date; showRootName: boolean },
): StatusDisplay {
  const state = displayState(status);
  const name = rootName(status.root);
  const text = `${STATE_SYMBOLS[state]} ${state}` + (options.showRootName ? ` · ${name}` : "");
  const lines = [`freshpass · ${status.root}`];
  const evidence = status.evidence ?? undefined;
  switch (status.status) {
    case "passed":
    case "failed":
      lines.push(`${STATE_SYMBOLS[state]} ${state}: ${describeEvidence(evidence, options.now)}`);
      break;
    case "flaky": {
      const pair = evidence ? status.kinds?.[evidence.kind ?? "test"]?.flaky : undefined;
      const both = pair ? `receipt #${pair.passed.id} passed and #${pair.failed.id} failed` : "it passed and failed";
      const counted = status.flaky_counts ? "the pass counts" : "not verified";
      lines.push(`≈ flaky: ${both} on this content (${counted}); ${describeEvidence(evidence, options.now)}`);
      break;
    }
    case "stale":
      lines.push(`⚠ unverified: the content changed since the last run (${describeEvidence(evidence, options.now)})`);
      break;
    case "unverified":
      lines.push("⚠ unverified: no run of a verify command is recorded for this root");
      break;
    case "unchecked":
      lines.push(
        "○ not checked: this workspace is not trusted (Restricted Mode), and freshpass runs nothing in it, not even " +
          "git; it cannot compute this root's content id exactly without git (the server log says why), so it " +
          "cannot tell whether a receipt covers the files as they are now",
      );
      if (evidence) {
        lines.push(`Latest receipt (coverage not checked): ${describeEvidence(evidence, options.now)}`);
      }
      lines.push("Trust the workspace (Manage Workspace Trust) to check freshness");
      return {
        state,
        text: `${STATE_SYMBOLS[state]} not checked` + (options.showRootName ? ` · ${name}` : ""),
        tooltip: lines.join("\n"),
      };
    default:
      lines.push(`⚠ unverified: the server reported an unknown status "${String(status.status)}"`);
  }
  for (const shared of (status.shared ?? []).slice(0, 3)) {
    lines.push(describeShared(shared, options.now));
  }
  const changed = status.changed_paths ?? [];
  if (changed.length > 0) {
    const shown = changed.slice(0, 5).join(", ");
    lines.push(`Changed: ${shown}${changed.length > 5 ? ` and ${changed.length - 5} more` : ""}`);
  }
  // A click runs the test check; where the project declares none, nothing else stands in for it.
  const approved = status.verify_commands?.find((command) => command.kind === "test");
  if (approved) {
    lines.push(`Click to run ${approved.command}`);
  } else if (status.verify_commands) {
    lines.push("No test check is declared (`freshpass facts --all` shows what was found and why)");
  } else {
    lines.push("Click to run the project's test check");
  }
  return { state, text, tooltip: lines.join("\n") };
}

const ACTOR_LABELS: Record<string, string> = { ci: "CI", person: "person", agent: "agent" };

/** `Shared: ✓ full · CI · 2 h ago · pytest -q — not counted (shared.trust is off)`: another machine's run. */
export function describeShared(shared: SharedReceipt, now: Date): string {
  const symbol =
    shared.status !== "passed" ? "✗ failed" : shared.scope === "full" ? "✓ full" : "◐ targeted";
  const actor = ACTOR_LABELS[shared.actor ?? ""] ?? shared.actor ?? "unknown";
  const age = formatAge(shared.finished_at, now);
  const standing = shared.counted ? "counted" : `not counted (${shared.why ?? "not trusted"})`;
  return `Shared: ${symbol} · ${actor}${age ? ` · ${age}` : ""} · ${shared.command ?? "?"} — ${standing}`;
}

/** `pytest -q passed 3 min ago (12 passed, 1 skipped)`. */
export function describeEvidence(evidence: Evidence | undefined, now: Date): string {
  if (!evidence) {
    return "no receipt";
  }
  const command = evidence.command ?? evidence.canonical_command ?? "a verify command";
  const by = evidence.shared ? ` by ${ACTOR_LABELS[evidence.shared.actor ?? ""] ?? "another machine"} (shared)` : "";
  const outcome = (evidence.status ?? "finished") + by;
  const age = formatAge(evidence.finished_at, now);
  const details = [testCounts(evidence), evidence.reason ?? undefined].filter(Boolean).join("; ");
  return `${command} ${outcome}${age ? ` ${age}` : ""}${details ? ` (${details})` : ""}`;
}

export function testCounts(evidence: Evidence): string | undefined {
  const tests = evidence.tests;
  if (!tests) {
    return undefined;
  }
  const counted = (["passed", "failed", "skipped"] as const).filter((key) => typeof tests[key] === "number");
  if (counted.length === 0) {
    return undefined;
  }
  // Zeros are noise ("1 passed", not "1 passed, 0 failed, 0 skipped"), unless every count is zero.
  const nonZero = counted.filter((key) => tests[key] !== 0);
  return nonZero.length > 0 ? nonZero.map((key) => `${tests[key]} ${key}`).join(", ") : "0 tests";
}

/**
 * `just now`, `5 min ago`, `2 h ago`, `3 days ago`. Accepts an ISO 8601 string or seconds since the epoch
 * (both are common in JSON); anything unparseable gives an empty string rather than a wrong age.
 */
export function formatAge(finishedAt: string | number | null | undefined, now: Date): string {
  if (finishedAt === null || finishedAt === undefined || finishedAt === "") {
    return "";
  }
  const millis = typeof finishedAt === "number" ? finishedAt * 1000 : Date.parse(finishedAt);
  if (!Number.isFinite(millis)) {
    return "";
  }
  const seconds = Math.max(0, Math.round((now.getTime() - millis) / 1000));
  if (seconds < 45) {
    return "just now";
  }
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  const hours = Math.round(minutes / 60);
  if (hours < 24) {
    return `${hours} h ago`;
  }
  const days = Math.round(hours / 24);
  return `${days} day${days === 1 ? "" : "s"} ago`;
}
