import type { WorkflowSpec } from '../spec/schema.js';
import { secrets } from './redactor.js';

/**
 * Registers the values of a spec's `env.secrets` (strands-cli: `key` is the environment variable)
 * with the process's redactor. Only `source: env` can be read here; the other sources name stores
 * acode does not open, so there is no value to hide.
 */
export function registerSpecSecrets(spec: WorkflowSpec, env: NodeJS.ProcessEnv): void {
  for (const secret of spec.env?.secrets ?? []) {
    if (secret.source === 'env') secrets.register(env[secret.key]);
  }
}

/** Registers a provider's key and any password written into its base URL (https://user:pass@host). */
export function registerProviderSecrets(apiKey: string | undefined, baseUrl: string): void {
  secrets.register(apiKey);
  if (URL.canParse(baseUrl)) secrets.register(decodeURIComponent(new URL(baseUrl).password) || undefined);
}
