import { loadRemoteConfig } from '../../config/resume-config.js';
import { AcodeError, ExitCode } from '../../errors/acode-error.js';
import { parseRemoteTarget, type RemoteTarget } from './remote-target.js';

export type { RemoteTarget };

/**
 * The team store configured for this home and project: the URL in the variable `remote.url_env`
 * names (ACODE_REMOTE_URL by default), or undefined when that variable is unset or empty — then
 * nothing about the remote is loaded or done. Its password is registered with the redactor, as a
 * provider's key is, so no stored or printed text carries it.
 */
export function remoteTarget(home: string, cwd: string, env: NodeJS.ProcessEnv): RemoteTarget | undefined {
  const config = loadRemoteConfig(home, cwd);
  const variable = config.url_env;
  const url = env[variable]?.trim();
  if (!url) return undefined;
  return parseRemoteTarget(variable, url, config.statement_timeout_seconds * 1000);
}

/** Messages of unusable URLs already said by this process: a resume asks for the target twice (its claim, then its run's push). */
const warned = new Set<string>();

/**
 * The target for a command that goes on without a store (a run, a resume): a URL that cannot be
 * used is handed to `warn` — once per process, however many parts of the command ask — and the
 * command runs as if none were configured.
 */
export function usableRemoteTarget(home: string, cwd: string, env: NodeJS.ProcessEnv, warn: (line: string) => void): RemoteTarget | undefined {
  try {
    return remoteTarget(home, cwd, env);
  } catch (error) {
    if (!(error instanceof AcodeError)) throw error;
    if (!warned.has(error.message)) {
      warned.add(error.message);
      warn(`acode: ${error.message}; the team store is not used (local sessions are unaffected)\n`);
    }
    return undefined;
  }
}

/** The target, or an AcodeError saying how to configure one: for the commands that need it. */
export function requireRemote(home: string, cwd: string, env: NodeJS.ProcessEnv): RemoteTarget {
  const target = remoteTarget(home, cwd, env);
  if (target) return target;
  const variable = loadRemoteConfig(home, cwd).url_env;
  throw new AcodeError(`no team store configured: set ${variable} to postgres://user:password@host:5432/database (see docs/storage.md, 'Team store (PostgreSQL)')`, ExitCode.usage);
}
