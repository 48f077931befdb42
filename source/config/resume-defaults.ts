import { join } from 'node:path';

/** The lock timeout when no config file sets resume.lock_timeout_seconds (also the config's default). */
export const defaultLockTimeoutSeconds = 60;

/** The two config files, in the order they apply: $ACODE_HOME/config.yml, then the project's .acode/config.yml. */
export function configFiles(home: string, projectDir: string): string[] {
  return [join(home, 'config.yml'), join(projectDir, '.acode', 'config.yml')];
}
