import { renderTemplate, TemplateError } from '../../spec/template.js';
import { continuePrompt, readSnapshot, snapshotChanges, type AgentCliOutcome, type AgentCliUpdate } from '../agent-cli.js';
import { sha256 } from '../blob-store.js';
import { regularFileNow } from '../file-now.js';
import type { PatternStep } from '../pattern.js';
import { classifyStop, type StepTries } from '../resume-strategy.js';
import { nextAttempt } from '../session-progress.js';
import type { StepHost, StepRunner } from '../step-runner.js';
import { StopRun } from '../stop-run.js';
import { extraRoots } from '../tools/agent-tools.js';
import { confinedPath, ToolInputError } from '../tools/confined-path.js';

type CliStep = PatternStep & { work: { kind: 'agent_cli' } };

/** The step's prompt, rendered with what an agent step's input sees. */
function promptFor(step: CliStep, host: StepHost): string {
  const context = host.pattern.context(step.id, host.progress, host.options.variables);
  try {
    return renderTemplate(step.work.cli.prompt, { ...context, ...step.work.cli.vars });
  } catch (error) {
    if (error instanceof TemplateError) throw new StopRun('failed', 'template_error', `${host.title(step.id)} (${step.work.cli.cli}): template prompt, line ${error.line}: ${error.message}`);
    throw error;
  }
}

/** Where the CLI works: the step's `cwd` inside the session's working directory (or env.mounts). */
function workingFolder(step: CliStep, host: StepHost): string {
  try {
    return confinedPath(host.options.cwd, step.work.cli.cwd ?? '.', extraRoots(host.options.spec));
  } catch (error) {
    if (error instanceof ToolInputError) throw new StopRun('failed', 'template_error', `${host.title(step.id)} (${step.work.cli.cli}): cwd: ${error.message}`);
    throw error;
  }
}

/**
 * A step an agent CLI runs headless. Its child process (pid and start time) and its conversation id
 * are journaled as soon as they are known, so a resume after any crash first ends a CLI still
 * running — two agents never work in one folder — then continues the same conversation with a short
 * "continue" prompt instead of starting over. A later step naming the same `session` continues it too.
 */
export const runAgentCliStep: StepRunner<CliStep['work']> = async (step, host) => {
  const { sessionId, spec } = host.options;
  const config = step.work.cli;
  const id = step.id;
  const port = host.options.agentCli;
  if (!port) throw new StopRun('failed', 'provider_error', `${host.title(id)}: this acode cannot run agent CLI steps here`);
  const tries: StepTries = { autoAttempts: 0 };
  // An attempt under way when acode stopped: its CLI may outlive it (kill -9 does not reach a child in its own group).
  const earlier = host.progress.in_progress[id] ? host.progress.agent_cli[id] : undefined;
  if (earlier && port.running(earlier.pid, earlier.started)) await port.endGroup(earlier.pid);
  // This step's own conversation, when an earlier attempt got as far as naming it: continued, not restarted.
  let own = earlier?.session_id ?? null;
  // After a context overflow the named session is not continued either: the next attempt starts a fresh conversation.
  let fresh = false;
  const withhold = (spec.env?.secrets ?? []).map((secret) => secret.key);
  // A snapshot that cannot be read leaves the folder now as the baseline.
  let baseline = earlier?.tree ? readSnapshot(host.options.blobs, earlier.tree) : undefined;
  for (;;) {
    if (host.cancelled) throw new StopRun('paused', 'user_exit', 'stopped by the user');
    if (host.sessionStop) throw new StopRun('paused', host.sessionStop.reason, `${host.title(id)}: not retried, the session stopped`);
    host.checkBudget();
    const prompt = promptFor(step, host);
    const cwd = workingFolder(step, host);
    const resumeId = own ?? (config.session && !fresh ? host.progress.cli_sessions[config.session] : undefined) ?? null;
    const attempt = nextAttempt(host.progress, id);
    const key = `${sessionId}:${id}:${attempt}`;
    host.emit({ type: 'step_started', step: id, agent: config.cli, attempt, idempotency_key: key, ...(tries.lastRetry ? { retry: tries.lastRetry } : {}), ...host.stepsTotalNow() });
    await host.options.journal.flush?.();
    const started = performance.now();
    // The folder before the step's first attempt (an interrupted one may have edited it already): what
    // the step changes is known after, and a resume after a crash compares the folder against it.
    const before = baseline ?? port.snapshot(cwd);
    baseline = before;
    const tree = host.options.blobs.put(Buffer.from(JSON.stringify(before)));
    // Journaled at once and made durable: a crash a moment later still knows the child and the conversation.
    const durable: Promise<void>[] = [];
    // An id journaled when it differs from the last one journaled (claude repeats it on every line; the
    // one the attempt continues is known already): a stream that names another mid-way and its own
    // again in the result leaves the last one named — the one to continue — as the journal's.
    let named = resumeId;
    const onUpdate = (update: AgentCliUpdate): void | Promise<void> => {
      if (update.kind === 'spawned') {
        host.emit({ type: 'agent_cli_started', step: id, attempt, cli: config.cli, pid: update.pid, started: update.started, cwd, resume_id: resumeId, ...(config.session ? { session: config.session } : {}), tree });
        // The CLI gets its prompt once this is on disk.
        return host.options.journal.flush?.();
      } else if (update.kind === 'session') {
        own = update.id;
        if (named === update.id) return;
        named = update.id;
        host.emit({ type: 'agent_cli_session', step: id, attempt, cli: config.cli, session_id: update.id, ...(config.session ? { session: config.session } : {}) });
      } else {
        // Not held for a slow stdout: a CLI's reader is a child's pipe, which the kernel already bounds.
        void host.notify?.(update.kind === 'text' ? { type: 'step_text', step: id, attempt, text: update.text } : { type: 'step_tool_call', step: id, attempt, name: update.name });
        return;
      }
      const flushed = host.options.journal.flush?.();
      if (flushed) durable.push(flushed);
    };
    let outcome: AgentCliOutcome;
    try {
      outcome = await port.run({ cli: config.cli, prompt: own && own === resumeId ? continuePrompt(config.cli) : prompt, ...(resumeId ? { resumeId } : {}), cwd, ...(config.model ? { model: config.model } : {}), ...(config.allowed_tools ? { allowedTools: config.allowed_tools } : {}), ...(config.args ? { args: config.args } : {}), ...(config.timeout ? { timeoutMs: config.timeout * 1000 } : {}), withhold, signal: host.signal }, onUpdate);
      await Promise.all(durable);
    } catch (error) {
      await Promise.all(durable).catch(() => undefined);
      const stop = classifyStop(error, host.cancelled);
      const next = await host.retryAfter(stop, tries, id, attempt);
      if (next === 'new_session') {
        // The conversation outgrew the CLI's context: the next attempt starts a fresh one with the task.
        host.recordAttempt({ step: id, tries, stop, strategy: 'new_session', outcome: { kind: 'delayed', next_attempt_at: new Date().toISOString() } });
        own = null;
        fresh = true;
      }
      continue;
    }
    const files = touchedFiles(before, port.snapshot(cwd, before), host);
    if (files.length) host.emit({ type: 'agent_cli_files', step: id, attempt, files });
    if (!outcome.sessionId) {
      host.emit({ type: 'agent_cli_session', step: id, attempt, cli: config.cli, session_id: null, message: `${config.cli} named no session id${config.session ? `: the next step of session '${config.session}' starts a fresh conversation` : ''}` });
    }
    host.emit({ type: 'step_completed', step: id, agent: config.cli, attempt, idempotency_key: key, response: outcome.text, usage: outcome.usage, duration_ms: Math.round(performance.now() - started), ...(outcome.costUsd !== null ? { cost_usd: outcome.costUsd } : {}) });
    if (tries.lastStop) host.recordAttempt({ step: id, tries, stop: tries.lastStop, strategy: 'none', outcome: { kind: 'success' } });
    return;
  }
};

/** The files a CLI attempt changed, with their content now (stored as blobs, so a later [V]iew can show them). */
function touchedFiles(before: Record<string, string>, after: Record<string, string>, host: StepHost): { path: string; hash: string | null; blob: string | null }[] {
  return snapshotChanges(before, after).map(({ path }) => {
    const file = regularFileNow(path);
    if (!file) return { path, hash: null, blob: null };
    return { path, hash: sha256(file.content), blob: host.options.blobs.put(file.content) };
  });
}
