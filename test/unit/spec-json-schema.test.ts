import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkSpecText } from '../../source/spec/load-spec.js';
import { jsonSchemaFile, specJsonSchema, specJsonSchemaText } from '../../source/spec/json-schema.js';

// ajv 6 (draft-07) is already installed as ESLint's; the test borrows it, acode does not ship it.
const Ajv = createRequire(import.meta.url)('ajv') as new (options: object) => { compile(schema: object): ((data: unknown) => boolean) & { errors?: unknown[] } };

const validate = new Ajv({ allErrors: true }).compile(specJsonSchema());
const specDirs = ['test/fixtures/strands-examples', 'examples'];
const specs = specDirs.flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => join(dir, f)));

describe('the spec JSON Schema', () => {
  it('is committed as acode schema prints it', () => {
    expect(readFileSync(jsonSchemaFile, 'utf8')).toBe(specJsonSchemaText());
  });

  it('accepts every spec acode accepts, the strands-cli examples and ours', () => {
    const accepted = specs.filter((file) => checkSpecText(readFileSync(file, 'utf8'), file).spec !== undefined);
    expect(accepted.length).toBeGreaterThan(40);
    const rejected = accepted.filter((file) => !validate(parse(readFileSync(file, 'utf8'))));
    expect(rejected).toEqual([]);
  });

  it('rejects what acode rejects in its shape: an unknown provider, a chain without steps', () => {
    const base = { version: 0, name: 'x', agents: { a: { prompt: 'p' } }, pattern: { type: 'chain', config: { steps: [{ agent: 'a', input: 'i' }] } } };
    expect(validate({ ...base, runtime: { provider: 'scripted' } })).toBe(true);
    expect(validate({ ...base, runtime: { provider: 'nope' } })).toBe(false);
    expect(validate({ ...base, runtime: { provider: 'scripted' }, pattern: { type: 'chain', config: { steps: [] } } })).toBe(false);
  });

  it('is referenced by every example for editor completion', () => {
    for (const file of readdirSync('examples').filter((f) => f.endsWith('.yaml'))) {
      expect(readFileSync(join('examples', file), 'utf8').split('\n')[0]).toBe(`# yaml-language-server: $schema=../${jsonSchemaFile}`);
    }
  });
});
