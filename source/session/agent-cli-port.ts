import { resolve } from 'node:path';
import { agentCliRunner } from '../agent-cli/agent-cli-runner.js';
import type { AgentCliPort } from '../engine/agent-cli.js';
import { defaultHome } from '../store/acode-home.js';

/**
 * The agent-CLI port a run and a resume use: acode's own home (its logs change while a CLI runs, and
 * may lie inside the working folder) is never a file the CLI touched, in a step's snapshots and in
 * the resume's comparison alike.
 */
export function sessionAgentCli(env: NodeJS.ProcessEnv = process.env): AgentCliPort {
  return agentCliRunner({ exclude: [resolve(defaultHome(env))] });
}
