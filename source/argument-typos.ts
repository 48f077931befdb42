import { didYouMean } from './closest-name.js';
import { cliFlags, longFlags, shortFlags } from './command-table.js';
import { ageHelp } from './config/retention-settings.js';

const takesValue = new Set(Object.entries(cliFlags).filter(([, flag]) => flag.type === 'string').map(([name]) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`));

/**
 * The first flag acode does not take, as a message naming the closest one it does ("unknown flag
 * '--nmae' — did you mean '--name'?"); undefined when every flag is known. Read before the parser,
 * which would exit on its own with a bare "Unknown flag".
 */
export function unknownFlagMessage(argv: readonly string[]): string | undefined {
  const long = new Set(longFlags());
  const short = new Set(shortFlags());
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return undefined;
    if (arg.startsWith('--')) {
      const flag = arg.split('=')[0]!;
      if (!long.has(flag)) return `unknown flag '${flag}'${didYouMean(flag, long)}`;
      // The next argument is this flag's value, even when it starts with a dash.
      if (takesValue.has(flag) && !arg.includes('=')) {
        i++;
        // The parser would read a negative age as a flag and say only "Unknown flag": no age is negative.
        if (flag === '--older-than' && argv[i]?.startsWith('-')) return `--older-than '${argv[i]}' is not an age: use ${ageHelp}`;
      }
    } else if (/^-[^\d.]/.test(arg)) {
      // Short flags may be bundled (-hv): each letter must be one acode takes.
      for (const letter of arg.slice(1)) if (!short.has(`-${letter}`)) return `unknown flag '-${letter}' (short flags: ${[...short].join(', ')})`;
    }
  }
  return undefined;
}
