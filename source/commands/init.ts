import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initProviders } from '../command-table.js';
import { AcodeError, ExitCode } from '../errors/acode-error.js';
import { jsonSchemaFile } from '../spec/json-schema.js';
import type { CommandContext } from './command-context.js';
import { starterSpec, type StarterProvider } from './starter-specs.js';
import { somethingAt, writeUserFile } from './user-file.js';

export const defaultStarterFile = 'workflow.yaml';

/** The package's schema file, found above this module (dist/ or dist/chunks/ when built, source/commands/ in tests). */
function packagedSchema(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 4; up++, dir = dirname(dir)) {
    if (existsSync(join(dir, jsonSchemaFile))) return join(dir, jsonSchemaFile);
  }
  return undefined;
}

/**
 * `acode init [file] [--provider scripted|openai|ollama] [--force] [--json]`: writes a starter spec;
 * never over a file without --force. --json: `{file, path, provider}` of the file written, on stdout.
 */
export function initCommand(ctx: CommandContext, file: string | undefined, flags: { provider?: string; force: boolean; json?: boolean }): ExitCode {
  const provider = flags.provider ?? 'scripted';
  if (!(initProviders as readonly string[]).includes(provider)) {
    throw new AcodeError(`--provider '${provider}': acode init writes a starter for ${initProviders.join(', ')}`, ExitCode.usage);
  }
  const target = file ?? defaultStarterFile;
  const path = resolve(ctx.cwd, target);
  // lstat: a dangling symlink is something there too, never written through without --force.
  if (somethingAt(path) && !flags.force) throw new AcodeError(`${target} exists; choose another file (acode init <file>), or add --force to replace it`, ExitCode.usage);
  const schema = packagedSchema();
  writeUserFile(path, target, starterSpec(provider as StarterProvider, schema && relative(dirname(path), schema)), { replace: flags.force });
  const setup = provider === 'openai' ? '; set OPENAI_API_KEY first' : provider === 'ollama' ? '; start Ollama with llama3.2 pulled first' : ' (offline)';
  if (flags.json) ctx.stdout.write(`${JSON.stringify({ file: target, path, provider })}\n`);
  ctx.stderr.write(`wrote ${target}: a 2-step chain on the ${provider} provider\nrun it: acode run ${shellWord(target)} --var topic="durable agents"${setup}\n`);
  return ExitCode.ok;
}

/** A path as a shell reads it back as one word: as it is when plain, else in single quotes ("my spec.yaml" printed bare was two words). */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
