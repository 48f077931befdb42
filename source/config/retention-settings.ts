import { sessionStatuses } from '../session/status-words.js';
import { z } from '../validation/z.js';

const units = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const durationPattern = /^(\d+)\s*([smhdw])$/;

/** "30d" → milliseconds; undefined for anything that is not a count and one of s, m, h, d, w. */
export function parseAge(text: string): number | undefined {
  const match = durationPattern.exec(text.trim());
  return match ? Number(match[1]) * units[match[2] as keyof typeof units] : undefined;
}

export const ageHelp = 'a count and a unit: 90m, 12h, 30d, 2w';

/**
 * `retention:` in config.yml: the defaults of `acode sessions cleanup`. Nothing is ever deleted
 * because of them alone — cleanup applies them when a person runs it, and lists first.
 */
export const retentionSchema = z.strictObject({
  older_than: z.string().refine((text) => parseAge(text) !== undefined, { message: `not an age: use ${ageHelp}` }),
  status: z.array(z.enum(sessionStatuses)).min(1),
});

export type RetentionConfig = z.infer<typeof retentionSchema>;

export const defaultRetentionConfig: RetentionConfig = { older_than: '30d', status: ['completed', 'failed', 'cancelled'] };
