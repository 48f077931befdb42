import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { agentToolNames } from '../engine/tools/agent-tools.js';
import type { WorkflowSpec } from '../spec/schema.js';

function onPath(program: string, path: string | undefined): boolean {
  return (path ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir || '.', program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A spec that gives an agent python_exec needs python3: without it every call would fail, after
 * the model calls before it were paid for. Refused before the run starts, saying what to do.
 */
export function requirePython(spec: WorkflowSpec, specPath: string, env: NodeJS.ProcessEnv): void {
  const users = Object.keys(spec.agents).filter((id) => agentToolNames(spec, id).has('python_exec'));
  if (users.length === 0 || onPath('python3', env.PATH)) return;
  throw new AcodeError(
    `${specPath}: agent${users.length === 1 ? '' : 's'} ${users.map((id) => `'${id}'`).join(', ')} ${users.length === 1 ? 'is' : 'are'} given python_exec, which runs python3, and python3 is not on PATH: install Python 3 (or put it on PATH), or take python_exec out of the spec`,
    ExitCode.usage,
  );
}
