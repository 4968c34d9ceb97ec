/**
 * Choosing a root's test check once. When the server says the check is a close call or rests only on convention or
 * CI (`freshpass/candidates` → `needs_choice`), the first ▶ Run or status-item click asks "Which command runs this
 * project's full tests?" with the candidates and where each comes from. The pick goes through the server's
 * `freshpass.choose`, which writes it to `.freshpass.toml` (or `[tool.freshpass]` in pyproject.toml), and that run
 * then runs the chosen command. Dismissing the question runs the detected check; either way a root is asked once
 * per workspace (the command "Choose the test command" asks again).
 *
 * No `vscode` import: the editor's parts (quick pick, server, workspace memory, messages) come in as `ChooseHost`,
 * so the whole flow is unit tested.
 */
import type {
  CandidatesResult,
  ChoiceCandidate,
  ChooseArguments,
  ChooseResult,
  RootStatus,
  VerifyArguments,
} from "./protocol";

export const QUESTION = "Which command runs this project's full tests?";

export interface CandidateItem {
  label: string;
  description: string;
  detail?: string;
  candidate: ChoiceCandidate;
}

/** What the chooser needs from the editor and the server. */
export interface ChooseHost {
  candidates(target: { root?: string; uri?: string }, kind: string): Promise<CandidatesResult | undefined>;
  choose(argument: ChooseArguments): Promise<ChooseResult>;
  pick(items: CandidateItem[], title: string, placeholder: string): Promise<CandidateItem | undefined>;
  /** Workspace memory: the roots already asked. */
  asked(root: string): boolean;
  remember(root: string): Promise<void>;
  showStatus(status: RootStatus): void;
  error(message: string): void;
  log(message: string): void;
}

const BASIS_TEXT: Record<string, string> = {
  configured: "configured for freshpass",
  documented: "the contributor docs",
  declared: "declared by the project",
  convention: "the ecosystem's convention",
  ci: "a CI step",
  narrower: "runs part of the suite",
};

/** The quick pick's rows: the command, why and where it was found, and which one ▶ Run runs today. */
export function candidateItems(candidates: ChoiceCandidate[]): CandidateItem[] {
  return candidates.map((candidate) => {
    const where = candidate.cwd && candidate.cwd !== "." ? ` (in ${candidate.cwd})` : "";
    const details = [candidate.primary ? "runs now" : "", candidate.note ?? ""].filter((part) => part !== "");
    return {
      label: `${candidate.command}${where}`,
      description: `${BASIS_TEXT[candidate.basis] ?? candidate.basis} · ${candidate.source}`,
      detail: details.length > 0 ? details.join(" · ") : undefined,
      candidate,
    };
  });
}

/**
 * The root or file a verify run is about, when it is a run of the full test check: the status item's `{root}`,
 * a `{root, kind: "test"}`, or a lens's `{root, command}` (checked against the candidates later). Targeted runs and
 * other kinds are never asked about.
 */
export function testRunTarget(argument: VerifyArguments | undefined): { root?: string; uri?: string } | undefined {
  if (!argument || argument.targeted || (argument.args && argument.args.length > 0)) {
    return undefined;
  }
  if (argument.kind !== undefined && argument.kind !== "test") {
    return undefined;
  }
  if (!argument.root && !argument.uri) {
    return undefined;
  }
  return argument.root ? { root: argument.root } : { uri: argument.uri };
}

export class TestCommandChooser {
  constructor(private readonly host: ChooseHost) {}

  /**
   * Before a verify run: ask once when its root's test check needs confirming. Returns the arguments to run with
   * (the chosen command once chosen; unchanged otherwise).
   */
  async beforeRun(argument: VerifyArguments | undefined): Promise<VerifyArguments | undefined> {
    const target = testRunTarget(argument);
    if (!argument || !target) {
      return argument;
    }
    let answer: CandidatesResult | undefined;
    try {
      answer = await this.host.candidates(target, "test");
    } catch (error) {
      this.host.log(`Choosing the test command: no candidates (${errorText(error)}).`);
      return argument;
    }
    if (!answer || !answer.needs_choice || this.host.asked(answer.root)) {
      return argument;
    }
    const primary = answer.candidates.find((candidate) => candidate.primary);
    if (argument.command !== undefined && argument.command !== primary?.command) {
      return argument; // a lens of another check: the person picked that one
    }
    await this.host.remember(answer.root);
    const chosen = await this.ask(answer);
    return chosen ? { root: answer.root, command: chosen.command } : argument;
  }

  /** Ask now (the "Choose the test command" command), whatever was asked before. */
  async chooseNow(target: { root?: string; uri?: string }): Promise<ChoiceCandidate | undefined> {
    const answer = await this.host.candidates(target, "test");
    if (!answer) {
      return undefined;
    }
    if (answer.candidates.length === 0) {
      this.host.error(
        "freshpass: no test command was found to choose from; add one under [tool.freshpass] verify in " +
          "pyproject.toml or .freshpass.toml.",
      );
      return undefined;
    }
    await this.host.remember(answer.root);
    return this.ask(answer);
  }

  private async ask(answer: CandidatesResult): Promise<ChoiceCandidate | undefined> {
    const why = answer.ambiguous ? "a close call" : "a guess";
    const picked = await this.host.pick(
      candidateItems(answer.candidates),
      QUESTION,
      `Today's check is ${why}; your choice goes to .freshpass.toml or [tool.freshpass] for the team and CI`,
    );
    if (!picked) {
      this.host.log(`Choosing the test command of ${answer.root}: dismissed; the detected check runs.`);
      return undefined;
    }
    const { candidate } = picked;
    try {
      const result = await this.host.choose({
        root: answer.root,
        kind: "test",
        command: candidate.command,
        cwd: candidate.cwd,
      });
      this.host.showStatus(result.status);
      this.host.log(`"${candidate.command}" is now the test command of ${answer.root} (${result.choice.file}).`);
      return candidate;
    } catch (error) {
      this.host.error(`freshpass: the test command was not changed: ${errorText(error)}`);
      return undefined;
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
