import { loadResumeConfig } from '../config/resume-config.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { EngineEvent, SessionStatus } from '../engine/events.js';
import { fenceEvents } from '../engine/epoch-fence.js';
import { compareEvents, toCheckpoint } from '../engine/session-progress.js';
import { isNumbered, patternFor, patternWords } from '../engine/patterns/pattern-for.js';
import { aliveUntil, checkpointSteps, replaySteps, sessionSteps, stepStateStyle, type SessionStep } from '../state/session-steps.js';
import { homedir } from 'node:os';
import { formatAgo, homeRelative } from '../human-units.js';
import { ranIn } from '../state/browser-rows.js';
import { sessionTitle } from '../session/session-name.js';
import { listWithLiveness, type ListedSession } from '../session/listing.js';
import { describeOwner } from '../session/lock-owner.js';
import type { SessionRepository } from '../session/repository.js';
import { statusWords } from '../session/status-words.js';
import { openRepository, paint, type CommandContext } from './command-context.js';
import { checkStatus, parseLimit } from './list-flags.js';
import { callsDollars, formatDollars, jsonDollars, roundDollars, pricerFor, type StepPricer } from '../state/step-cost.js';
import { firstLine, type StepResult } from '../state/step-results.js';
import { stepCalled, stepName, stepNamed, stepNamesText } from '../engine/step-names.js';
import { stepDetailLines, stepFacts } from '../state/step-detail-lines.js';
import stringWidth from 'string-width';
import { printable, terminalText } from '../printable-text.js';


const relativeTime = (iso: string) => formatAgo(Date.parse(iso));

function table(ctx: CommandContext, rows: ListedSession[]): string {
  const header = ['ID', 'WORKFLOW', 'STATUS', 'STEPS', 'TOKENS', 'UPDATED', 'DIRECTORY'];
  const home = ctx.env.HOME || homedir();
  // One line a session, its columns in line: a name's tabs and line breaks would break them, and are measured as the terminal draws it (名 takes two columns).
  const oneLine = (text: string) => printable(text.replace(/[\t\n]/g, ' '));
  const cells = rows.map((r) => [r.session_id, oneLine(sessionTitle(r)), r.interrupted ? `${r.status} (interrupted)` : r.status, `${r.steps_done}/${r.steps_total}`, String(r.tokens.input + r.tokens.output), relativeTime(r.updated_at), oneLine(homeRelative(r.cwd, home))]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => stringWidth(c[i]!))));
  const pad = (cell: string, width: number) => cell + ' '.repeat(Math.max(0, width - stringWidth(cell)));
  const line = (c: string[], status?: SessionStatus) =>
    c.map((cell, i) => (i === 2 && status ? paint(ctx, statusWords[status].hue, pad(cell, widths[i]!)) : pad(cell, widths[i]!))).join('  ').trimEnd();
  return [line(header), ...cells.map((c, i) => line(c, rows[i]!.status))].join('\n');
}

function lockTimeoutMs(ctx: CommandContext, repository: SessionRepository): number {
  return loadResumeConfig(repository.home, ctx.cwd).lock_timeout_seconds * 1000;
}


/**
 * `acode sessions list [--status S] [--resumable | --remote] [--here] [--limit N] [--json]`: newest
 * first, each with the folder it ran in; --here: only those that ran in this one (the browser's "this directory").
 */
export async function listSessions(ctx: CommandContext, flags: { status?: string; resumable: boolean; limit?: string; json: boolean; remote?: boolean; here?: boolean }): Promise<ExitCode> {
  checkStatus(flags.status);
  const limit = parseLimit(flags.limit);
  if (flags.remote) {
    const { listRemoteSessions } = await import('./remote-sessions.js');
    return listRemoteSessions(ctx, flags);
  }
  const repository = openRepository(ctx);
  const timeoutMs = lockTimeoutMs(ctx, repository);
  const listed = await listWithLiveness(repository, timeoutMs, (row) => (!flags.status || row.status === flags.status) && (!flags.here || ranIn(row.cwd, ctx.cwd)));
  const rows = listed.filter((row) => !flags.resumable || row.resumable).slice(0, limit);
  if (flags.json) ctx.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  else if (rows.length === 0) ctx.stderr.write(`no ${flags.resumable ? 'resumable ' : ''}sessions${flags.status ? ` with status ${flags.status}` : ''}${flags.here ? ` ran in ${homeRelative(ctx.cwd, ctx.env.HOME || homedir())}` : ''}; start one with 'acode run <spec.yaml>'\n`);
  else ctx.stdout.write(`${table(ctx, rows)}\n`);
  return ExitCode.ok;
}

/** What a step's tokens cost, when its agent's model is priced. */
function stepDollars(price: StepPricer | undefined, step: SessionStep, result: StepResult | undefined): number | undefined {
  return result?.reported_usd ?? (result && price ? callsDollars(price, step.agent, result.calls) : undefined);
}

/** The session's dollars: every step that spent tokens priced (from its calls, or as its agent CLI reported), else unknown. */
function sessionDollars(steps: readonly SessionStep[], results: ReadonlyMap<string, StepResult>, price: StepPricer | undefined): number | undefined {
  let total = 0;
  for (const step of steps) {
    const result = results.get(step.id);
    if (!result || result.tokens.input + result.tokens.output === 0) continue;
    const dollars = stepDollars(price, step, result);
    if (dollars === undefined) return undefined;
    total += dollars;
  }
  return total;
}

/**
 * Every step with where it stands and what it did, in lanes for patterns that have them:
 * "  level 2" / "    ✓ technical  researcher  done  attempt 1  2.1s  148 in / 41 out ≈ $0.0004  The answer…".
 */
function stepLines(ctx: CommandContext, pattern: string, steps: readonly SessionStep[], results: ReadonlyMap<string, StepResult>, price: StepPricer | undefined): string[] {
  // Each step by its name, as --step and --from-step take it.
  const names = steps.map((step) => terminalText(stepName(pattern, step.id)));
  // Names, agents and states line up down the whole list (a step outside every lane is indented less).
  const width = Math.max(0, ...names.map((name) => name.length));
  const agentWidth = Math.max(0, ...steps.map((step) => step.agent.length));
  const rows = steps.map((step) => {
    const result = results.get(step.id);
    return stepFacts(step, result, stepDollars(price, step, result));
  });
  // The facts line up after the longest state.
  const stateWidth = Math.max(0, ...rows.map((row) => row.state.length));
  const lines: string[] = [];
  for (const [i, step] of steps.entries()) {
    if (step.group !== null && steps[i - 1]?.group !== step.group) lines.push(`  ${patternWords(pattern).laneLabel(step.group)}`);
    const style = stepStateStyle[step.status];
    const { state, facts: seen } = rows[i]!;
    // What the pattern read of the answer (a route chosen, a score, a subtask) comes first.
    const facts = step.detail ? [terminalText(step.detail), ...seen] : seen;
    const name = isNumbered(pattern) ? names[i]!.padStart(width) : names[i]!.padEnd(step.group === null ? width + 2 : width);
    const row = `${paint(ctx, style.color, style.glyph)} ${name}  ${terminalText(step.agent).padEnd(agentWidth)}  ${paint(ctx, style.color, state)}${facts.length ? `${' '.repeat(stateWidth - state.length)}  ${facts.join('  ')}` : ''}`;
    lines.push(`${step.group === null ? '  ' : '    '}${row}`);
  }
  return lines;
}

/**
 * `acode sessions show <id> [--step S] [--json]`: the session and each step's state, as its event log
 * tells it; with --step, that step's whole response and its tool calls.
 */
export async function showSession(ctx: CommandContext, id: string, flags: { json: boolean; step?: string }): Promise<ExitCode> {
  const repository = openRepository(ctx);
  const session = await repository.open(id);
  const record = session.record;
  const lock = await repository.lockState(record.session_id, lockTimeoutMs(ctx, repository));
  const events = await session.events();
  const spec = await session.spec();
  const pattern = patternFor(spec);
  // The checkpoint is a lazy snapshot of the log: what the log says is newer, unless the log trails it (not written by a run).
  // A step under way counts its time up to now; one its process was killed in, up to that process's last heartbeat.
  const replayed = replaySteps(events, record.checkpoint.steps_total, aliveUntil(lock));
  const fromLog = replayed.progress.last_event_id >= record.checkpoint.last_event_id;
  const steps = fromLog ? sessionSteps(pattern, replayed, lock.kind === 'held') : checkpointSteps(pattern, { ...record.checkpoint, in_progress: Object.keys(record.checkpoint.in_progress) }, lock.kind === 'held');
  const cp = fromLog ? toCheckpoint(replayed.progress) : record.checkpoint;
  // Named as --step takes it ("step 3", "step web/1", "step 2" for a task called "2").
  const titleOf = (step: string) => stepCalled(pattern.type, step);
  const results = fromLog ? replayed.results : new Map<string, StepResult>();
  const price = await pricerFor(spec);
  if (flags.step !== undefined) return showStep(ctx, record.session_id, pattern.type, steps, flags.step, results, price, flags.json);
  // Priced only when the log tells every step's tokens (the steps add up to the total).
  const dollars = fromLog ? sessionDollars(steps, results, price) : undefined;
  if (flags.json) {
    const shown = steps.map(({ index: _index, ...step }) => {
      const result = results.get(step.id);
      const facts = result ? { attempt: result.attempt, tokens: result.tokens, elapsed_ms: result.elapsed_ms, dollars: jsonDollars(stepDollars(price, step as SessionStep, result)), first_line: firstLine(result.response), cut: result.cut } : {};
      return { ...step, id: stepName(pattern.type, step.id), ...facts };
    });
    ctx.stdout.write(`${JSON.stringify({ ...record, events: events.length, dollars: jsonDollars(dollars), steps: shown }, null, 2)}\n`);
    return ExitCode.ok;
  }
  // What came from the spec, a model or a server (names, paths, the message) is shown without terminal controls.
  const lines = [
    `session   ${record.session_id}${record.name === undefined ? '' : ` (${record.name})`}`,
    terminalText(`workflow  ${record.workflow_name} (${record.pattern_type})`),
    `status    ${paint(ctx, statusWords[cp.status].hue, cp.status)}${cp.stop_reason ? ` (${cp.stop_reason})` : ''}${cp.status === 'running' && lock.kind !== 'held' ? ` (interrupted: resume it with acode resume ${record.session_id})` : ''}`,
    terminalText(`lock      ${lock.kind === 'free' ? 'none' : `${lock.kind === 'held' ? 'held' : 'stale'} by ${describeOwner(lock.owner)}${lock.kind === 'stale' ? `: ${lock.why}` : ''}`}`),
    terminalText(`progress  ${steps.filter((step) => step.status === 'done').length}/${steps.length} steps done${Object.values(cp.in_progress).map((step) => `, ${titleOf(step.step)} in progress (attempt ${step.attempt})`).join('')}`),
    `tokens    ${cp.tokens.input} in / ${cp.tokens.output} out${dollars === undefined ? '' : ` ${formatDollars(dollars)}`}`,
    terminalText(`spec      ${record.spec_path}`),
    terminalText(`cwd       ${record.cwd}`),
    terminalText(`provider  ${record.runtime.provider}${record.runtime.model_id ? ` · ${record.runtime.model_id}` : ''}`),
    `created   ${record.created_at}`,
    `updated   ${record.updated_at} (${relativeTime(record.updated_at)})`,
    ...(Object.keys(record.variables).length ? [terminalText(`variables ${Object.entries(record.variables).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ')}`)] : []),
    ...(cp.error ? [terminalText(`message   ${cp.error}`)] : []),
    ...cp.artifacts.map((path) => terminalText(`artifact  ${path}`)),
    'steps',
    ...stepLines(ctx, pattern.type, steps, results, price),
  ];
  ctx.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}

/** `sessions show <id> --step S`: one step, by its number in a chain or its id; an unknown one is a usage error. */
function showStep(ctx: CommandContext, sessionId: string, pattern: string, steps: readonly SessionStep[], ref: string, results: ReadonlyMap<string, StepResult>, price: StepPricer | undefined, json: boolean): ExitCode {
  const id = stepNamed(pattern, steps, ref);
  const step = steps.find((candidate) => candidate.id === id);
  if (!step) {
    throw new AcodeError(`--step ${ref}: no such step in session ${sessionId}; give ${pattern === 'chain' ? 'a step number' : 'a step'}: ${stepNamesText(pattern, steps)}`, ExitCode.usage);
  }
  const result = results.get(step.id);
  const dollars = stepDollars(price, step, result);
  if (json) {
    const { index: _index, ...shown } = step;
    ctx.stdout.write(`${JSON.stringify({ session_id: sessionId, ...shown, id: stepName(pattern, step.id), attempt: result?.attempt ?? step.attempt, tokens: result?.tokens ?? null, elapsed_ms: result?.elapsed_ms ?? null, dollars: jsonDollars(dollars), prompt: result?.prompt ?? null, response: result?.response ?? null, cut: result?.cut ?? false, tool_calls: result?.tools ?? [] }, null, 2)}\n`);
    return ExitCode.ok;
  }
  ctx.stdout.write(`${stepDetailLines(step, stepName(pattern, step.id), result, dollars).join('\n')}\n`);
  return ExitCode.ok;
}

/**
 * `acode sessions delete <id> [--force] [--json]`: asks on a terminal; refuses without --force
 * otherwise, and while a live process runs the session. --json: `{"deleted": id}` on stdout (null when kept at the question).
 */
export async function deleteSession(ctx: CommandContext, id: string, flags: { force: boolean; json?: boolean }): Promise<ExitCode> {
  const repository = openRepository(ctx);
  const sessionId = await repository.resolveId(id);
  await repository.requireWritable(`delete session ${sessionId}`);
  const lock = await repository.lockState(sessionId, lockTimeoutMs(ctx, repository));
  if (lock.kind === 'held' && !flags.force) {
    throw new AcodeError(`session ${sessionId} is running in ${describeOwner(lock.owner)}; stop it there first, or add --force`, ExitCode.locked, 'ACODE-RESUME-003');
  }
  if (!flags.force) {
    if (!ctx.interactive) throw new AcodeError(`refusing to delete session ${sessionId} without a terminal to confirm; add --force`, ExitCode.usage);
    if (!(await ctx.confirm(`Delete session ${sessionId} and its event log? [y/N] `))) {
      ctx.stderr.write('kept it\n');
      if (flags.json) ctx.stdout.write(`${JSON.stringify({ session_id: sessionId, deleted: null })}\n`);
      return ExitCode.ok;
    }
  }
  // Checked again under the session's lock: a resume started while the question waited is not deleted under it.
  if (flags.force) await repository.delete(sessionId);
  else if ((await repository.deleteIfIdle(sessionId, lockTimeoutMs(ctx, repository))) === 'running') {
    const now = await repository.lockState(sessionId, lockTimeoutMs(ctx, repository));
    throw new AcodeError(`session ${sessionId} was taken up${now.kind === 'held' ? ` by ${describeOwner(now.owner)}` : ''} while you answered; it was not deleted (stop it there first, or add --force)`, ExitCode.locked, 'ACODE-RESUME-003');
  }
  ctx.stderr.write(`deleted session ${sessionId}\n`);
  if (flags.json) ctx.stdout.write(`${JSON.stringify({ session_id: sessionId, deleted: sessionId })}\n`);
  return ExitCode.ok;
}

function describeEvent(event: EngineEvent): string {
  const { event_id: _id, ts: _ts, type: _type, ...rest } = event;
  const short = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text).replace(/\n/g, '⏎');
  return Object.entries(rest).map(([key, value]) => `${key}=${short(typeof value === 'string' ? value : JSON.stringify(value))}`).join(' ');
}

/** `acode sessions history <id> [--json]`: the event log as replayed (superseded lock holders' events fenced out, then (timestamp, event_id)), steps by name. */
export async function sessionHistory(ctx: CommandContext, id: string, flags: { json: boolean }): Promise<ExitCode> {
  const session = await openRepository(ctx).open(id);
  // Each event's step by its name, as every other view shows it (the log keeps the stored id: events.jsonl is the raw form);
  // a call's dollars as --json gives dollars everywhere: rounded to a millionth, not a float sum's 17 digits.
  const pattern = session.record.pattern_type;
  const events = fenceEvents(await session.events())
    .sort(compareEvents)
    .map((event) => ({
      ...event,
      ...('step' in event && typeof event.step === 'string' ? { step: stepName(pattern, event.step) } : {}),
      ...('cost_usd' in event && typeof event.cost_usd === 'number' ? { cost_usd: roundDollars(event.cost_usd) } : {}),
    }));
  if (flags.json) {
    ctx.stdout.write(`${JSON.stringify(events, null, 2)}\n`);
    return ExitCode.ok;
  }
  for (const event of events) ctx.stdout.write(`${String(event.event_id).padStart(5)}  ${event.ts}  ${event.type.padEnd(20)} ${terminalText(describeEvent(event))}\n`);
  return ExitCode.ok;
}

/** `acode sessions unlock <id> [--force]`: removes a lock; asks first when its owner still runs. */
export async function unlockSession(ctx: CommandContext, id: string, flags: { force: boolean }): Promise<ExitCode> {
  const repository = openRepository(ctx);
  const sessionId = (await repository.open(id)).record.session_id;
  const lock = await repository.lockState(sessionId, lockTimeoutMs(ctx, repository));
  if (lock.kind !== 'free') await repository.requireWritable(`unlock session ${sessionId}`);
  if (lock.kind === 'free') {
    ctx.stderr.write(`session ${sessionId} is not locked\n`);
    return ExitCode.ok;
  }
  if (!flags.force) {
    const question = `Session ${sessionId} is locked by ${describeOwner(lock.owner)}${lock.kind === 'held' ? ', which is still running' : ` (${lock.why})`}. Remove the lock? [y/N] `;
    if (ctx.interactive) {
      if (!(await ctx.confirm(question))) {
        ctx.stderr.write('kept the lock\n');
        return ExitCode.ok;
      }
    } else if (lock.kind === 'held') {
      throw new AcodeError(`session ${sessionId} is locked by ${describeOwner(lock.owner)}, which is still running; add --force to remove the lock anyway`, ExitCode.locked, 'ACODE-RESUME-003');
    }
  }
  await repository.unlock(sessionId);
  ctx.stderr.write(`unlocked session ${sessionId} (was held by ${describeOwner(lock.owner)})\n`);
  return ExitCode.ok;
}
