import type { AgentCliCall } from '../engine/agent-cli.js';

/**
 * The headless command line of each CLI, the prompt read from stdin (so no prompt is ever seen in
 * `ps`, and no length limit of argv applies):
 * - claude -p --output-format stream-json --verbose [--resume <id>] [--model m] [--allowedTools a,b] [args…]
 * - codex exec --json [--model m] [args…] [resume <id>] -
 */
export function cliArgs(call: Pick<AgentCliCall, 'cli' | 'resumeId' | 'model' | 'allowedTools' | 'args'>): string[] {
  const extra = [...(call.args ?? [])];
  if (call.cli === 'claude') {
    return ['-p', '--output-format', 'stream-json', '--verbose', ...(call.resumeId ? ['--resume', call.resumeId] : []), ...(call.model ? ['--model', call.model] : []), ...(call.allowedTools?.length ? ['--allowedTools', call.allowedTools.join(',')] : []), ...extra];
  }
  return ['exec', '--json', ...(call.model ? ['--model', call.model] : []), ...extra, ...(call.resumeId ? ['resume', call.resumeId] : []), '-'];
}
