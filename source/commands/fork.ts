import { ExitCode } from '../errors/acode-error.js';
import { forkSession, previewForkSession } from '../session/fork.js';
import { terminalText } from '../printable-text.js';
import { checkSessionName } from '../session/session-name.js';
import { openRepository, type CommandContext } from './command-context.js';
import { parseVars } from './parse-vars.js';
import { runSession } from './run-session.js';

export interface ForkFlags {
  /** `--spec <file>`: an edited spec to run instead of the source's; steps whose input it leaves unchanged are reused. */
  spec?: string;
  /** The step to run again from: a chain's 1-based number, or a step id; what does not depend on it is reused. Default: the first unfinished step. */
  fromStep?: string;
  json: boolean;
  /** `--dry-run`: say which steps the fork would reuse and why each other one runs; create nothing. */
  dryRun?: boolean;
  /** `--name`: the new session's unique name. */
  name?: string;
  /** `--var k=v`: variables the source session stored without their value, given back. */
  vars?: readonly string[];
}

/**
 * `acode fork <id> [--from-step N]`: a new session with the same spec snapshot, variables and working
 * directory, reusing the source's completed steps before N — the way out of a terminal state.
 */
export async function forkCommand(ctx: CommandContext, id: string, flags: ForkFlags): Promise<ExitCode> {
  if (flags.dryRun) return previewFork(ctx, id, flags);
  return (await forkAndRun(ctx, id, flags)).code;
}

/** The fork made and run (the command's, and the browser's f): its exit code and the new session's id. */
export async function forkAndRun(ctx: CommandContext, id: string, flags: ForkFlags): Promise<{ code: ExitCode; sessionId: string }> {
  const prepared = await forkSession(openRepository(ctx), { id, specPath: flags.spec, fromStep: flags.fromStep, name: flags.name === undefined ? undefined : checkSessionName(flags.name), cwd: ctx.cwd, env: ctx.env, vars: parseVars(flags.vars ?? []) });
  const announce = () => {
    const { from, reused, edited } = prepared.intro;
    ctx.stderr.write(edited === undefined
      ? `acode: forked session ${from} → ${prepared.sessionId}, reusing ${reused} step${reused === 1 ? '' : 's'}\n`
      : `acode: forked session ${from} → ${prepared.sessionId} with ${edited}: ${reused} completed step${reused === 1 ? '' : 's'} may be reused, each where its input is unchanged\n`);
  };
  return { code: await runSession(ctx, prepared, { json: flags.json, announce }), sessionId: prepared.sessionId };
}

/** `acode fork <id> [--spec <file>] --dry-run`: one line a step, reused or run and why; nothing created. */
async function previewFork(ctx: CommandContext, id: string, flags: ForkFlags): Promise<ExitCode> {
  const { from, steps } = await previewForkSession(openRepository(ctx), { id, specPath: flags.spec, fromStep: flags.fromStep, cwd: ctx.cwd, env: ctx.env, vars: parseVars(flags.vars ?? []) });
  if (flags.json) {
    ctx.stdout.write(`${JSON.stringify({ dry_run: true, from_session: from, spec: flags.spec ?? null, steps }, null, 2)}\n`);
    return ExitCode.ok;
  }
  const reused = steps.filter((step) => step.reused).length;
  const nameWidth = Math.max(0, ...steps.map((step) => terminalText(`step ${step.step}`).length));
  const agentWidth = Math.max(0, ...steps.map((step) => terminalText(step.agent).length));
  const lines = [
    `dry run: a fork of session ${from}${flags.spec === undefined ? '' : ` running ${flags.spec}`} would reuse ${reused} of ${steps.length} steps; nothing was created or run`,
    ...steps.map((step) => `  ${step.reused ? '↷' : '▶'} ${terminalText(`step ${step.step}`).padEnd(nameWidth)}  ${terminalText(step.agent).padEnd(agentWidth)}  ${step.reused ? 'reused' : 'runs'}: ${terminalText(step.why)}`),
  ];
  ctx.stdout.write(`${lines.join('\n')}\n`);
  return ExitCode.ok;
}
