import { ExitCode } from '../errors/acode-error.js';
import { stepNamer } from '../engine/pattern.js';
import { modelCall, type EngineEventBody } from '../engine/events.js';
import type { ApprovalDesk } from '../engine/approval.js';
import type { SessionExecutor, RunSummary } from '../engine/session-executor.js';
import { redact } from '../secrets/redactor.js';
import { executeRun, type RunView } from '../session/execute.js';
import type { PreparedRun, RunIntro } from '../session/prepared-run.js';
import { headline, statusWords } from '../session/status-words.js';
import { approvalHint } from '../state/approval-hint.js';
import { paint, type CommandContext } from './command-context.js';
import { importInk } from './import-ink.js';
import { forkStartLine, plainLine } from './plain-progress.js';
import { unpricedAgents } from '../engine/prices.js';
import { dollarsWith, jsonDollars, noSaving, pricerFor, runSpendText, savingWith, type ResumeSaving } from '../state/step-cost.js';
import { StreamPrinter } from './stream-printer.js';
import { startRunPush } from './run-push.js';
import type { BackgroundPush } from '../store/remote/background-push.js';
import type { RemoteClaim } from '../store/remote/remote-claim.js';
import { syncLine } from '../state/sync-line.js';
import { plural } from '../human-units.js';
import { terminalText } from '../printable-text.js';
import { backlog } from '../output-streams.js';

export interface PresentOptions {
  json: boolean;
  /** Answers to approval steps given as flags (--approve …). */
  approvals?: ApprovalDesk;
  /** What the command says before the run starts (the resume plan, the fork); written once the run is guarded. */
  announce?: () => void;
  /** `--stream`: without the run view, each step's answer goes to stdout as it arrives. */
  stream?: boolean;
  /** The team store's connection and lease a resume took: the run's push holds them on. */
  remote?: RemoteClaim;
  /** Preamble events the command has said itself (the changed-file prompt's answer): not said again above the run view. */
  saidAlready?: readonly EngineEventBody['type'][];
}

function exitCodeFor(summary: RunSummary, userStopped: boolean): ExitCode {
  if (summary.status === 'completed') return ExitCode.ok;
  if (userStopped && (summary.status === 'paused' || summary.status === 'awaiting_approval')) return ExitCode.interrupted;
  return ExitCode.failure;
}

/** What the plain lines tally while the run goes: its dollars, and what a resume's skipped steps saved. */
interface PlainTally {
  dollars?: number;
  saving?: ResumeSaving;
}

/**
 * "3 steps (1 executed, 2 skipped)": a resume skips the steps completed earlier; a fork reuses its
 * source's ("2 reused from 5f56…"), it skips nothing.
 */
function stepCounts(summary: RunSummary, intro: RunIntro): string {
  const notRun = intro.kind === 'fork' ? `${summary.steps_skipped} reused from ${intro.from}` : `${summary.steps_skipped} skipped`;
  return `${plural(summary.steps_total, 'step')} (${summary.steps_executed} executed, ${notRun})`;
}

function closingLine(ctx: CommandContext, summary: RunSummary, intro: RunIntro, saved: boolean, tally: PlainTally): string {
  const spend = runSpendText(tally.dollars, tally.saving);
  const counts = `${stepCounts(summary, intro)} · tokens ${summary.tokens.input} in / ${summary.tokens.output} out${spend ? ` · ${spend}` : ''}`;
  const status = summary.status === 'created' || summary.status === 'running' ? 'failed' : summary.status;
  const label = paint(ctx, statusWords[status].hue, headline(status));
  if (status === 'awaiting_approval') return `${label}: ${counts}${saved ? `\n${approvalHint(summary.session_id)}` : ''}`;
  return `${label}: ${counts}${status === 'paused' && saved ? `\nResume with: acode resume ${summary.session_id}` : ''}`;
}

/**
 * Opens the run's face: the Ink run view for a person at a terminal, plain lines on stderr
 * otherwise. Ctrl+C or SIGTERM pauses; a second one leaves at once (the checkpoint is already durable).
 */
/**
 * The plain lines' word on the team store: the degraded line at each failed attempt (its reason,
 * the events pending, when it tries again), and one line when the store answers again.
 */
function printSync(ctx: CommandContext, push: BackgroundPush): void {
  let degraded = false;
  const hear = (view: ReturnType<BackgroundPush['view']>) => {
    const line = syncLine(view);
    if (line) ctx.stderr.write(`${terminalText(redact(line))}\n`);
    else if (degraded) ctx.stderr.write(`sync: reconnected — the team store answers again${view.pending > 0 ? ` (${plural(view.pending, 'event')} held back)` : ', up to date ✓'}\n`);
    degraded = view.state === 'degraded';
  };
  if (push.view().state === 'degraded') hear(push.view());
  push.onChange(hear);
}

async function openView(ctx: CommandContext, prepared: PreparedRun, executor: SessionExecutor, options: PresentOptions, tally: PlainTally, push?: BackgroundPush): Promise<RunView> {
  options.announce?.();
  const { pattern, progress } = prepared;
  // Loaded only when some agent's provider is priced (openai, anthropic).
  const price = await pricerFor(prepared.spec);
  const shape = pattern.shape(prepared.progress);
  const total = shape.length;
  const name = stepNamer(pattern, prepared.progress);
  let stopRequests = 0;
  const onSignal = () => {
    if (++stopRequests > 1) ctx.hardExit(ExitCode.interrupted);
    executor.cancel();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const stopListening = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };

  if (!ctx.interactive || options.json) {
    ctx.stderr.write(`acode: session ${prepared.sessionId} · ${terminalText(prepared.spec.name)} · pid ${process.pid}\n`);
    if (push) printSync(ctx, push);
    tally.saving = noSaving(total, price);
    tally.dollars = price ? 0 : undefined;
    const agents = new Map<string, string>();
    const header = (step: string, attempt: number) => terminalText(`── ${name(step)}${attempt > 1 ? ` (attempt ${attempt})` : ''} ──`);
    const printer = options.stream && !options.json ? new StreamPrinter((text) => ctx.stdout.write(text), header) : undefined;
    // Into a pipe its reader has not emptied, the answer is read no further off the model's connection
    // until it drains (output-streams.ts backlog): what waits for a slow reader waits in the server.
    if (printer)
      executor.onNotice((notice) => {
        printer.notice(notice);
        return backlog(ctx.stdout);
      });
    executor.subscribe((event) => {
      printer?.event(event);
      if (event.type === 'step_skipped') tally.saving = savingWith(tally.saving!, event.agent, event.usage, price);
      if (event.type === 'step_started') agents.set(event.step, event.agent);
      const call = modelCall(event);
      if (call) tally.dollars = dollarsWith(tally.dollars, price, agents.get(call.step) ?? '', call.usage);
      const { intro } = prepared;
      const line = event.type === 'session_started' && intro.kind === 'fork' ? forkStartLine(intro.from, intro.edited, event.steps_skipped, event.steps_total) : plainLine(event, total, name, (id) => progress.spent[id], (id) => pattern.shape(progress).find((node) => node.id === id)?.detail);
      // The line quotes a model or a tool (an approval's context, a failed tool's answer): no terminal controls of theirs.
      if (line && !options.saidAlready?.includes(event.type)) ctx.stderr.write(`${terminalText(redact(line))}\n`);
    });
    return {
      close: async () => {
        printer?.end();
        stopListening();
      },
    };
  }
  try {
    // The view shows steps; what happened before them (a lock takeover) goes above it, once.
    for (const event of prepared.preamble) {
      if (options.saidAlready?.includes(event.type)) continue;
      const line = plainLine(event, total, name);
      if (line) ctx.stderr.write(`acode: ${terminalText(redact(line))}\n`);
    }
    // React and Ink load only here, so plain commands never pay for them.
    const [{ bindEngine }, { openRunScreen }] = await Promise.all([import('../state/bind-engine.js'), importInk(() => import('../ui/run/run-screen.js'))]);
    const { store, approvals } = bindEngine(executor, { sessionId: prepared.sessionId, workflowName: prepared.spec.name, pattern: pattern.type, steps: shape, price, saved: prepared.saved, ...(prepared.intro.kind === 'fork' ? { forkOf: prepared.intro.from } : {}), describe: (id) => pattern.shape(prepared.progress).find((node) => node.id === id) });
    if (push) {
      store.getState().setSync(push.view());
      push.onChange((view) => store.getState().setSync(view));
    }
    const screen = openRunScreen(store, () => ctx.hardExit(ExitCode.interrupted));
    return {
      approvals,
      async close() {
        stopListening();
        await screen.close();
      },
    };
  } catch (error) {
    stopListening();
    throw error;
  }
}

/**
 * `--json`'s object: the run's summary with the session's name (its --name, else null), its workflow
 * and its dollars — every model call of the session as priced when made, rounded to a millionth;
 * null when some agent's model has no price (a local server, the scripted provider). A fork's steps
 * taken from its source are `steps_reused` (with `forked_from`), not `steps_skipped`: it skips none.
 */
async function jsonSummary(prepared: PreparedRun, summary: RunSummary) {
  const priced = (await unpricedAgents(prepared.spec)).length === 0;
  const fork = prepared.intro.kind === 'fork' ? prepared.intro.from : null;
  const counts = { steps_skipped: fork === null ? summary.steps_skipped : 0, steps_reused: fork === null ? 0 : summary.steps_skipped, forked_from: fork };
  return { ...summary, ...counts, name: prepared.name ?? null, workflow_name: prepared.spec.name, dollars: priced ? jsonDollars(prepared.progress.cost_usd) : null };
}

/**
 * Runs a prepared session (started, resumed or forked) with the right face, then presents the
 * result: one JSON object on stdout with --json, a closing line on stderr without the run view.
 */
export async function runSession(ctx: CommandContext, prepared: PreparedRun, options: PresentOptions): Promise<ExitCode> {
  const tally: PlainTally = {};
  // Off the step path: a timer pushes the session's events to the team store, if one is configured.
  const push = await startRunPush(ctx, prepared, options.remote);
  try {
    const { summary, userStopped } = await executeRun(prepared, { approvals: options.approvals, open: (executor) => openView(ctx, prepared, executor, options, tally, push) });
    if (options.json) ctx.stdout.write(`${JSON.stringify(await jsonSummary(prepared, summary))}\n`);
    if (!ctx.interactive || options.json) ctx.stderr.write(`${closingLine(ctx, summary, prepared.intro, prepared.saved, tally)}\n`);
    return exitCodeFor(summary, userStopped);
  } finally {
    await push?.stop();
  }
}
