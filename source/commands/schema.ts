import { resolve } from 'node:path';
import { ExitCode } from '../errors/acode-error.js';
import { writeUserFile } from './user-file.js';
import { specJsonSchemaText } from '../spec/json-schema.js';
import type { CommandContext } from './command-context.js';

/** `acode schema [--out <file>]`: the spec's JSON Schema, on stdout or into a file. */
export function schemaCommand(ctx: CommandContext, flags: { out?: string }): ExitCode {
  const text = specJsonSchemaText();
  if (flags.out === undefined) {
    ctx.stdout.write(text);
    return ExitCode.ok;
  }
  writeUserFile(resolve(ctx.cwd, flags.out), flags.out, text, { replace: true });
  ctx.stderr.write(`wrote ${flags.out}; point your editor at it with '# yaml-language-server: $schema=${flags.out}' on a spec's first line\n`);
  return ExitCode.ok;
}
