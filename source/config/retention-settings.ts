import { sessionStatuses } from '../session/status-words.js';
import { z } from '../validation/z.js';
import { ageHelp, parseAge } from './age.js';

export { ageHelp, parseAge };

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
