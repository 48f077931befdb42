import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chainSpec } from '../helpers/chain-spec.js';
import { runCli } from '../helpers/cli.js';
import { parseAllSessionFiles } from '../helpers/session-files.js';
import { tempDir } from '../helpers/temp-dir.js';

function workspace(spec: string) {
  const cwd = tempDir();
  const home = join(tempDir(), 'home');
  writeFileSync(join(cwd, 'spec.yaml'), spec);
  return { cwd, home, env: { ACODE_HOME: home } };
}

/** No session folder and nothing written in the working directory but the spec itself. */
function nothingWritten(ws: ReturnType<typeof workspace>): void {
  expect(existsSync(join(ws.home, 'sessions')) ? readdirSync(join(ws.home, 'sessions')) : []).toEqual([]);
  expect(readdirSync(ws.cwd)).toEqual(['spec.yaml']);
}

/** A one-step chain with its template fields replaceable; `marker` is the file an attack would create. */
function attackSpec(field: 'prompt' | 'input' | 'from', template: string): string {
  const at = (f: typeof field, fallback: string) => JSON.stringify(f === field ? template : fallback);
  return `version: 0
name: attack
runtime: { provider: scripted }
inputs:
  values: { topic: durability }
agents:
  writer:
    prompt: ${at('prompt', 'You write.')}
pattern:
  type: chain
  config:
    steps:
      - agent: writer
        input: ${at('input', 'Write about {{ topic }}')}
outputs:
  artifacts:
    - path: report.md
      from: ${at('from', '{{ last_response }}')}
`;
}

const forms = (marker: string): Record<string, string> => {
  const code = `'return process.getBuiltinModule("child_process").execSync("touch ${marker}")'`;
  return {
    'joiner.constructor': `{{ joiner.constructor(${code})() }}`,
    'range.constructor': `{{ range.constructor(${code})() }}`,
    'cycler.constructor': `{{ cycler.constructor(${code})() }}`,
    __proto__: `{{ joiner.__proto__.constructor(${code})() }}`,
    prototype: `{{ range.prototype.constructor.constructor(${code})() }}`,
    "['constructor']": `{{ joiner['constructor'](${code})() }}`,
    'via a variable': `{% set f = joiner %}{{ f.constructor(${code})() }}`,
    'inside {% set %}': `{% set g = joiner.constructor(${code}) %}{{ g() }}`,
  };
};

describe('a spec whose templates try to run code', () => {
  for (const field of ['prompt', 'input', 'from'] as const) {
    it(`is refused by validate and run, exit 2, nothing executed, no session (${field === 'prompt' ? 'agent prompt' : field === 'input' ? 'step input' : 'artifact from'})`, async () => {
      const outside = tempDir();
      for (const [name, template] of Object.entries(forms(join(outside, 'pwned')))) {
        const ws = workspace(attackSpec(field, template));
        const line = field === 'prompt' ? 8 : field === 'input' ? 14 : 18;
        const validated = await runCli(['validate', 'spec.yaml'], ws);
        expect(validated.code, `${name}: ${validated.stderr}`).toBe(2);
        expect(validated.stderr).toMatch(new RegExp(`^spec\\.yaml:${line}:\\d+: error: template .*cannot be`, 'm'));
        const ran = await runCli(['run', 'spec.yaml'], ws);
        expect(ran.code, `${name}: ${ran.stderr}`).toBe(2);
        expect(ran.stderr).toMatch(new RegExp(`spec\\.yaml:${line}:\\d+: error: template `));
        expect(ran.stderr).not.toMatch(/\n\s+at /);
        expect(existsSync(join(outside, 'pwned')), name).toBe(false);
        nothingWritten(ws);
      }
    });
  }
});

describe('mistakes found before the first step', () => {
  const spec = chainSpec({ steps: 2, provider: 'scripted' });

  it('refuses a misspelt variable at validate and at run, creating no session', async () => {
    const ws = workspace(spec.replace('research {{ topic }}', 'research {{ topc }}'));
    const validated = await runCli(['validate', 'spec.yaml'], ws);
    expect(validated.code).toBe(2);
    expect(validated.stderr).toMatch(/^spec\.yaml:\d+:\d+: error: .*undefined variable 'topc' \(did you mean 'topic'\?\)/m);
    const ran = await runCli(['run', 'spec.yaml'], ws);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("undefined variable 'topc'");
    nothingWritten(ws);
  });

  // FIXED: source/spec/load-spec.ts: in a spec with no inputs block, validate passed over an undefined variable ("valid", not a
  // word) that run then refused, pointing back at validate; an absolute or '..' artifact path was found only by run.
  it('says at validate what run will refuse: a variable from nowhere (a warning: --var may give it), a broken artifact path (an error)', async () => {
    const bare = spec.replace('inputs:\n  values:\n    topic: durability\n', '');
    expect(bare).not.toContain('inputs:');
    let ws = workspace(bare);
    const validated = await runCli(['validate', 'spec.yaml'], ws);
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stderr).toMatch(/^spec\.yaml:\d+:\d+: warning: template .*undefined variable 'topic'; declare it under inputs .* or pass --var topic=… \(acode run refuses this without it\)/m);
    expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(2);
    expect((await runCli(['run', 'spec.yaml', '--var', 'topic=x', '--no-save-session'], ws)).code).toBe(0);
    for (const [path, message] of [['/abs.md', 'absolute paths are not allowed in artifacts: /abs.md'], ['../escape.md', "path traversal is not allowed in artifacts: ../escape.md; a path cannot contain '..' components"]] as const) {
      ws = workspace(spec.replace(/outputs:[\s\S]*$/, `outputs:\n  artifacts:\n    - { path: "${path}", from: "{{ last_response }}" }\n`));
      const refused = await runCli(['validate', 'spec.yaml'], ws);
      expect(refused.code, path).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`^spec\\.yaml:\\d+:\\d+: error: ${message.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`, 'm'));
    }
  });

  it('refuses steps[n] beyond the steps before it, at validate and at run', async () => {
    for (const ref of ['steps[5]', 'steps[1]']) {
      const ws = workspace(spec.replace('continue from {{ steps[0].response }}', `continue from {{ ${ref}.response }}`));
      const validated = await runCli(['validate', 'spec.yaml'], ws);
      expect(validated.code, ref).toBe(2);
      expect(validated.stderr).toMatch(new RegExp(`^spec\\.yaml:\\d+:\\d+: error: .*${ref.replace('[', '\\[').replace(']', '\\]')} does not exist here`, 'm'));
      expect((await runCli(['run', 'spec.yaml'], ws)).code).toBe(2);
      nothingWritten(ws);
    }
  });

  it('warns about a --var nothing uses, naming the closest input', async () => {
    const ws = workspace(spec);
    const ran = await runCli(['run', 'spec.yaml', '--var', 'topik=agents', '--no-save-session'], ws);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("--var topik is not declared under inputs and no template uses it; it is ignored (did you mean 'topic'?)");
  });

  it('refuses extra positional arguments', async () => {
    const ws = workspace(spec);
    writeFileSync(join(ws.cwd, 'b.yaml'), spec);
    const ran = await runCli(['run', 'spec.yaml', 'b.yaml'], ws);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('acode run takes one spec file, got 2: spec.yaml b.yaml');
    expect(existsSync(join(ws.home, 'sessions'))).toBe(false);
  });

  it('places YAML errors, undefined aliases and alias bombs, exit 2 without a trace', async () => {
    const bomb = ['version: 0', 'a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const n of 'bcdefghi') bomb.push(`${n}: &${n} [${Array(9).fill(`*${String.fromCharCode(n.charCodeAt(0) - 1)}`).join(', ')}]`);
    const cases: [string, RegExp][] = [
      ['version: 0\nname: demo\nruntime:\n  provider: [scripted\nagents: {}\n', /^spec\.yaml:5:1: error: YAML: /m],
      ['version: 0\nname: *nothing\n', /^spec\.yaml:2:7: error: YAML: alias \*nothing refers to no anchor/m],
      [`${bomb.join('\n')}\nname: *i\n`, /^spec\.yaml:4:\d+: error: YAML: aliases expand into too many nodes/m],
    ];
    for (const [text, expected] of cases) {
      const ws = workspace(text);
      for (const command of ['validate', 'run']) {
        const result = await runCli([command, 'spec.yaml'], ws);
        expect(result.code, `${command}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(expected);
        expect(result.stderr).not.toMatch(/\n\s+at /);
      }
      nothingWritten(ws);
    }
  });
});

describe('artifacts by strands-cli rules', () => {
  const spec = (path: string) => chainSpec({ steps: 2, provider: 'scripted' }).replace('- path: ./out/report.md', `- path: ${JSON.stringify(path)}`);

  it('refuses an absolute path, a .. component or a symlink before the first step, creating no session', async () => {
    for (const [path, message] of [['/tmp/escape.md', 'absolute paths are not allowed'], ['../escape.md', "cannot contain '..'"], ['{{ topic }}/../../x.md', "cannot contain '..'"]]) {
      const ws = workspace(spec(path!));
      const ran = await runCli(['run', 'spec.yaml'], ws);
      expect(ran.code, ran.stderr).toBe(2);
      expect(ran.stderr).toMatch(/spec\.yaml:\d+:\d+: error: /);
      expect(ran.stderr).toContain(message);
      nothingWritten(ws);
    }
    const ws = workspace(spec('link/report.md'));
    const outside = tempDir();
    mkdirSync(join(ws.cwd, 'artifacts'));
    symlinkSync(outside, join(ws.cwd, 'artifacts', 'link'));
    const ran = await runCli(['run', 'spec.yaml'], ws);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('is a symlink');
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(ws.home, 'sessions'))).toBe(false);
  });

  it('writes into --out, refuses to overwrite a file it did not write, and overwrites with --force', async () => {
    const ws = workspace(spec('report.md'));
    const first = await runCli(['run', 'spec.yaml', '--out', 'results'], ws);
    expect(first.code, first.stderr).toBe(0);
    const written = readFileSync(join(ws.cwd, 'results', 'report.md'), 'utf8');
    expect(written).toContain('final: ');
    writeFileSync(join(ws.cwd, 'results', 'report.md'), 'mine');
    const again = await runCli(['run', 'spec.yaml', '--out', 'results'], ws);
    expect(again.code).toBe(2);
    // The one session so far wrote it; the person's edit makes it theirs.
    expect(again.stderr).toContain(`already exists and was changed since session ${parseAllSessionFiles(ws.home)[0]!.session_id} wrote it`);
    expect(parseAllSessionFiles(ws.home)).toHaveLength(1);
    expect(readFileSync(join(ws.cwd, 'results', 'report.md'), 'utf8')).toBe('mine');
    const forced = await runCli(['run', 'spec.yaml', '--out', 'results', '--force'], ws);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(ws.cwd, 'results', 'report.md'), 'utf8')).toBe(written);
  });

  it('takes --force on resume for a file that appeared while the session ran, and refuses --out there', async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' }));
    expect((await runCli(['run', 'spec.yaml'], ws)).signal).toBe('SIGKILL');
    // Someone else's file where the artifact goes, made while the session was stopped.
    mkdirSync(join(ws.cwd, 'artifacts', 'out'), { recursive: true });
    writeFileSync(join(ws.cwd, 'artifacts', 'out', 'report.md'), 'theirs');
    const paused = await runCli(['resume', '--json'], ws);
    expect(JSON.parse(paused.stdout)).toMatchObject({ status: 'paused' });
    expect(paused.stderr).toContain('pass --force (to acode run or acode resume)');
    expect(readFileSync(join(ws.cwd, 'artifacts', 'out', 'report.md'), 'utf8')).toBe('theirs');
    const moved = await runCli(['resume', '--out', 'elsewhere'], ws);
    expect(moved.code).toBe(2);
    expect(moved.stderr).toContain('--out is chosen when a session starts');
    const forced = await runCli(['resume', '--force', '--json'], ws);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(join(ws.cwd, 'artifacts', 'out', 'report.md'), 'utf8')).toContain('final: ');
  });

  it("lets a fork overwrite its source's artifacts, but not one a person edited since", async () => {
    const ws = workspace(chainSpec({ steps: 2, provider: 'scripted' }));
    const first = await runCli(['run', 'spec.yaml', '--json'], ws);
    const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
    const report = join(ws.cwd, 'artifacts', 'out', 'report.md');
    const untouched = await runCli(['fork', id, '--from-step', '2', '--json'], ws);
    expect(JSON.parse(untouched.stdout)).toMatchObject({ status: 'completed' });
    writeFileSync(report, 'edited by hand');
    const edited = await runCli(['fork', id, '--from-step', '2', '--json'], ws);
    expect(JSON.parse(edited.stdout)).toMatchObject({ status: 'paused' });
    expect(readFileSync(report, 'utf8')).toBe('edited by hand');
  });

  it('remembers --out across a crash: the resume writes to the same folder', async () => {
    const ws = workspace(chainSpec({ steps: 3, provider: 'scripted', scripted: '  scripted:\n    faults:\n      - { step: 1, kind: crash }' }));
    const crashed = await runCli(['run', 'spec.yaml', '--out', 'elsewhere'], ws);
    expect(crashed.signal).toBe('SIGKILL');
    const resumed = await runCli(['resume', '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', artifacts: [join(ws.cwd, 'elsewhere', 'out', 'report.md')] });
    expect(existsSync(join(ws.cwd, 'artifacts'))).toBe(false);
  });

  it('pauses, resumable, when the artifact cannot be written; the resume writes it once the path is fixed', async () => {
    // The step's agent writes a file where the artifact's folder must go: known only after the step ran.
    const text = chainSpec({ steps: 1, provider: 'scripted', scripted: '  scripted:\n    responses:\n      worker: { tool_calls: [ { name: file_write, args: { path: artifacts/out, content: "in the way", create_dirs: true } } ], then: "done" }' })
      .replace('agents:', 'tools:\n  python: [strands_tools.file_write.file_write]\nagents:');
    const ws = workspace(text);
    const paused = await runCli(['run', 'spec.yaml', '--json'], ws);
    expect(paused.code, paused.stderr).toBe(1);
    expect(JSON.parse(paused.stdout)).toMatchObject({ status: 'paused', steps_executed: 1 });
    expect(paused.stderr).toContain('Resume with: acode resume');
    const [record] = parseAllSessionFiles(ws.home);
    expect(record!.checkpoint).toMatchObject({ status: 'paused', stop_reason: 'artifact_error' });
    rmSync(join(ws.cwd, 'artifacts', 'out'));
    const resumed = await runCli(['resume', record!.session_id, '--yes', '--json'], ws);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'completed', steps_executed: 0, steps_skipped: 1 });
    expect(readFileSync(join(ws.cwd, 'artifacts', 'out', 'report.md'), 'utf8')).toContain('final: done');
  });
});

describe('a spec path that is no file', () => {
  // FIXED: source/spec/load-spec.ts (readSpecText): validate printed Node's text ("ENOENT: no such file or directory, open
  // 'nope.yaml'", "EISDIR: illegal operation on a directory, read"), and run sent the user to validate for a path it could not read.
  it.each([
    ['missing', 'nope.yaml', 'cannot read spec nope.yaml: no such file; check the path'],
    ['a folder', 'folder.yaml', 'cannot read spec folder.yaml: it is a folder; give the spec file in it'],
  ])('validate and run say why (%s), exit 2, nothing written', async (_what, path, message) => {
    const ws = workspace('version: 0\n');
    mkdirSync(join(ws.cwd, 'folder.yaml'));
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, path], ws);
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(`acode: ${message}`);
    }
    expect(existsSync(ws.home)).toBe(false);
  });
});
