import { AcodeError, ExitCode } from '../errors/acode-error.js';
import type { WorkflowSpec } from './schema.js';

/**
 * The limits a resume may change in the spec a session runs (`acode resume <id> --set key=value`):
 * the caps that pause a session when reached, so that raising one lets it go on. Nothing that would
 * change a step already run can be set: those steps' answers stay what the session recorded.
 */
const limits = {
  'runtime.budgets.max_steps': { integer: true },
  'runtime.budgets.max_tokens': { integer: true },
  'runtime.budgets.max_duration_s': { integer: false },
  'runtime.budgets.max_cost_usd': { integer: false },
  'pattern.config.max_iterations': { integer: true, pattern: 'graph' },
} as const satisfies Record<string, { integer: boolean; pattern?: string }>;

export const raisableLimits = Object.keys(limits);

export interface LimitChange {
  key: string;
  from: number | null;
  to: number;
}

/** Parses `key=value` settings; a key that is no limit, or a value that is no positive number, is a usage error. */
export function parseLimitSettings(settings: readonly string[]): Record<string, number> {
  const parsed: Record<string, number> = {};
  for (const setting of settings) {
    const at = setting.indexOf('=');
    const key = at < 0 ? setting : setting.slice(0, at);
    const value = Number(at < 0 ? NaN : setting.slice(at + 1));
    if (!Object.hasOwn(limits, key)) throw new AcodeError(`--set ${setting}: '${key}' is not a limit a resume can raise; these are: ${raisableLimits.join(', ')}`, ExitCode.usage);
    const rule = limits[key as keyof typeof limits];
    if (!Number.isFinite(value) || value <= 0 || (rule.integer && !Number.isInteger(value))) throw new AcodeError(`--set ${setting}: give ${key} a ${rule.integer ? 'whole number' : 'number'} above 0, e.g. --set ${key}=${rule.integer ? 20 : 2.5}`, ExitCode.usage);
    parsed[key] = value;
  }
  return parsed;
}

/** The spec with the limits set, and what changed; a limit of another pattern's is refused. */
export function raiseLimits(spec: WorkflowSpec, settings: Record<string, number>): { spec: WorkflowSpec; changes: LimitChange[] } {
  const next = structuredClone(spec);
  const changes: LimitChange[] = [];
  for (const [key, to] of Object.entries(settings)) {
    const rule = limits[key as keyof typeof limits] as { pattern?: string };
    if (rule.pattern && spec.pattern.type !== rule.pattern) throw new AcodeError(`--set ${key}: this session's pattern is ${spec.pattern.type}; ${key} is the ${rule.pattern} pattern's`, ExitCode.usage);
    const parts = key.split('.');
    let node = next as unknown as Record<string, unknown>;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    const last = parts.at(-1)!;
    const from = typeof node[last] === 'number' ? (node[last] as number) : null;
    if (from === to) continue;
    node[last] = to;
    changes.push({ key, from, to });
  }
  return { spec: next, changes };
}
