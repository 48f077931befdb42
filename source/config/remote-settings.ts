import { z } from '../validation/z.js';

import { defaultRemoteConfig as defaults, defaultRemoteUrlVariable } from './remote-defaults.js';

export { defaultRemoteUrlVariable };

/**
 * `remote:` in config.yml. The URL itself (it holds a password) is never written in a file: a
 * config names the environment variable that holds it, `ACODE_REMOTE_URL` unless `url_env` says.
 */
export const remoteSchema = z.strictObject({
  url_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'the name of an environment variable (letters, digits, _)' }),
  /** How long one statement may go unanswered before the store counts as unreachable (a route gone silent). */
  statement_timeout_seconds: z.number().positive().max(3600),
});

export type RemoteConfig = z.infer<typeof remoteSchema>;

export const defaultRemoteConfig: RemoteConfig = { ...defaults };
