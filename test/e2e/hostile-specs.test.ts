import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usageProbe } from '../helpers/child-usage.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const good = `version: 0
name: fine
runtime: { provider: scripted }
agents:
  writer:
    prompt: "You write."
pattern:
  type: chain
  config:
    steps:
      - agent: writer
        input: "Write about durability"
`;

function workspace(spec?: string | Buffer) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  if (spec !== undefined) writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

/** validate and run both refuse the spec: exit 2, the reason on stderr, no stack trace, no session. */
async function refusedByBoth(ws: ReturnType<typeof workspace>, reason: RegExp, spec = 'spec.yaml'): Promise<void> {
  for (const command of ['validate', 'run']) {
    const result = await runCli([command, spec], ws);
    expect(result.code, `${command}: ${result.stderr}`).toBe(2);
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).not.toMatch(/\n\s+at |internal error/);
  }
  expect(existsSync(join(ws.home, 'sessions')) ? readdirSync(join(ws.home, 'sessions')) : []).toEqual([]);
}

describe('a spec that is not a small UTF-8 text file', () => {
  it('refuses a named pipe instead of waiting on it forever', async () => {
    const ws = workspace();
    expect(spawnSync('mkfifo', [join(ws.cwd, 'spec.yaml')]).status).toBe(0);
    await refusedByBoth(ws, /cannot read spec spec\.yaml: it is a named pipe \(FIFO\), not a file/);
  });

  it('refuses a device', async () => {
    await refusedByBoth(workspace(), /cannot read spec \/dev\/zero: it is a device, not a file/, '/dev/zero');
  });

  it('refuses a spec past 4 MiB, naming the limit, without reading it', async () => {
    const ws = workspace(`${good}# ${'x'.repeat(4 * 1024 * 1024)}\n`);
    await refusedByBoth(ws, /it is 4,194,[0-9]{3} bytes, past the limit of 4 MiB/);
  });

  it('refuses a spec of more values than the limit quickly, before building the document', async () => {
    // Two million one-character values in 4 MiB took 2.7 GB and 30 s to parse.
    const ws = workspace(`${good}tags: [${Array.from({ length: 1_500_000 }, () => '1').join(',')}]\n`);
    const started = Date.now();
    await refusedByBoth(ws, /spec\.yaml:13:\d+: error: YAML: the file holds more than 50,000 values/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('reports a repeated key as the YAML library did', async () => {
    await refusedByBoth(workspace(`${good}name: again\n`), /spec\.yaml:13:1: error: YAML: Map keys must be unique/);
  });

  it('refuses a NUL byte, naming its offset', async () => {
    const ws = workspace(Buffer.concat([Buffer.from(good.slice(0, 20)), Buffer.from([0]), Buffer.from(good.slice(20))]));
    await refusedByBoth(ws, /holds a NUL byte at byte 20 \(line 2, column 10\)/);
  });

  it('refuses bytes that are not UTF-8, naming the offset', async () => {
    const ws = workspace(Buffer.concat([Buffer.from(good), Buffer.from('# caf'), Buffer.from([0xe9, 0x0a])]));
    await refusedByBoth(ws, new RegExp(`not valid UTF-8 at byte ${good.length + 5} \\(line 13, column 6\\)`));
  });
});

describe('YAML a spec may not hold', () => {
  it('refuses !!js/function and an unknown !tag, at their lines', async () => {
    const ws = workspace(good.replace('prompt: "You write."', 'prompt: !!js/function "function () {}"').replace('input: "Write about durability"', 'input: !weird "Write"'));
    await refusedByBoth(ws, /spec\.yaml:6:\d+: error: YAML: tag !!js\/function is not allowed/);
    await refusedByBoth(ws, /spec\.yaml:12:\d+: error: YAML: tag !weird is not allowed/);
  });

  it('refuses YAML 1.1 tags outside the core schema and keeps the core ones', async () => {
    await refusedByBoth(workspace(good.replace('name: fine', 'name: !!binary aGk=')), /tag !!binary is not allowed/);
    const fine = await runCli(['validate', 'spec.yaml'], workspace(good.replace('name: fine', 'name: !!str fine')));
    expect(fine.code, fine.stderr).toBe(0);
  });

  it('refuses an unknown template filter in validate as run does', async () => {
    const ws = workspace(good.replace('input: "Write about durability"', 'input: "{{ \'x\' | shout }}"'));
    await refusedByBoth(ws, /spec\.yaml:12:\d+: error: template pattern\.config\.steps\.0\.input: unknown filter 'shout'/);
  });
});

describe('a spec just within 4 MiB, of one long text', () => {
  // FIXED (issue 33): one 4 MiB string took 230–370 MB and up to 12 s to validate — the yaml library and
  // nunjucks' lexer each built it a character at a time (a chain of four million pieces), and a
  // template was lexed a character at a time once per scope (patches/yaml+…, patches/nunjucks+…).
  const text = 'a'.repeat(4 * 1024 * 1024 - 1024);
  it.each([
    ['a double-quoted prompt', good.replace('prompt: "You write."', `prompt: "{{ topic | default('x') }} ${text}"`)],
    ['a double-quoted key acode ignores', `${good}zzz_note: "${text}"\n`],
    ['a block-scalar input', good.replace('input: "Write about durability"', `input: |\n${text.slice(0, 3_600_000).match(/.{1,70}/g)!.map((line) => `          ${line}\n`).join('')}`)],
  ])('validates %s in a small multiple of the file: under 150 MB and 4 s of CPU', async (_what, spec) => {
    const ws = workspace(spec);
    const probe = usageProbe(ws.cwd);
    const result = await runCli(['validate', 'spec.yaml'], { cwd: ws.cwd, env: { ...ws.env, NODE_OPTIONS: probe.nodeOptions } });
    expect(result.code, result.stderr).toBe(0);
    const usage = probe.read();
    // The CLI alone takes ~65 MB: the spec may add a few times its size (its text, its value, the template's parts).
    expect(usage.rssMb).toBeLessThan(150);
    expect(usage.cpuMs).toBeLessThan(4000);
  });
});
