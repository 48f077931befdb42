import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { hashFolder } from '../helpers/folder-hash.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A key of the run (env.secrets) that is also part of a folder's name: acode never stores the key,
 * so the session's folder is stored without it — and a resume or fork must not go on in a folder
 * literally named [REDACTED].
 */
const secret = 'projects2024';

const spec = `version: 0
name: secret-folder
runtime:
  provider: scripted
  model_id: m
  scripted:
    faults:
      - { step: 1, kind: crash }
env:
  secrets:
    - { key: MY_SECRET, source: env }
agents:
  worker: { prompt: "You work." }
pattern:
  type: chain
  config:
    steps:
      - { agent: worker, input: "Step 0" }
      - { agent: worker, input: "Step 1" }
outputs:
  artifacts:
    - { path: report.md, from: "{{ last_response }}" }
`;

/** The files under `dir` whose bytes hold `text`. */
function filesHolding(dir: string, text: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => readFileSync(path).includes(text));
}

function workspace(folderHoldsKey: 'cwd' | 'out') {
  const root = tempDir();
  const cwd = join(root, folderHoldsKey === 'cwd' ? `${secret}-work` : 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  const home = join(root, 'home');
  return { root, cwd, home, env: { ACODE_HOME: home, MY_SECRET: secret } };
}

describe('a folder whose name holds a key of the run', () => {
  // FIXED: source/session/unfindable-folders.ts: resume and fork went on in (and wrote artifacts into) a new folder named [REDACTED].
  it.each([['cwd'], ['out']] as const)('is never stored, and resume and fork of the session refuse, changing nothing (%s)', async (where) => {
    const ws = workspace(where);
    const out = join(ws.root, `${secret}-out`);
    const run = await runCli(['run', 'spec.yaml', ...(where === 'out' ? ['--out', out] : [])], ws);
    expect(run.signal, run.stderr).toBe('SIGKILL');
    const id = readdirSync(join(ws.home, 'sessions'))[0]!;
    expect(filesHolding(ws.home, secret)).toEqual([]);
    const before = hashFolder(ws.root);
    for (const command of [['resume', id], ['fork', id]]) {
      const refused = await runCli(command, ws);
      expect(refused.code, refused.stderr).toBe(17);
      expect(refused.stderr).toMatch(/that folder's name held a key of the run \(env\.secrets or the provider key\), which acode never stores/);
    }
    expect(hashFolder(ws.root)).toEqual(before);
    expect(existsSync(join(ws.root, '[REDACTED]-work'))).toBe(false);
    expect(existsSync(join(ws.root, '[REDACTED]-out'))).toBe(false);
  });
});
