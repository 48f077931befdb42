import { didYouMean } from './closest-name.js';
import { cliFlags, longFlags, shortFlags, typedFlag, type FlagName } from './command-table.js';
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
      if (takesValue.has(flag) && !arg.includes('=')) {
        // The parser takes a flag as nothing at all, not as a value: `--out --dry-run` was an empty
        // --out and a --dry-run this check never saw, `--out` last an empty one.
        const value = argv[i + 1];
        if (value === undefined || value.startsWith('--') || (/^-[^\d.]/.test(value) && !value.includes('='))) {
          return `${flag} needs a value: ${flag} <value>${value?.startsWith('-') ? ` (one that starts with a dash is written ${flag}=${value})` : ''}`;
        }
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

/** Each flag as typed (`--dry-run`, `--no-dry-run`, `-h`), by its name. */
const flagNames = new Map<string, FlagName>(
  (Object.keys(cliFlags) as FlagName[]).flatMap((name) => {
    const flag = cliFlags[name];
    return [...typedFlag(name).map((typed) => [typed, name] as const), ...('shortFlag' in flag ? [[`-${flag.shortFlag}`, name] as const] : [])];
  }),
);

/**
 * The flags typed, each once, with the spelling first typed (`--no-save-session` is saveSession):
 * what the user asked for, where the parser's values cannot tell a flag left out from one at its
 * default. A flag's value is not read as a flag; nothing after `--` is.
 */
export function typedFlags(argv: readonly string[]): Map<FlagName, string> {
  const typed = new Map<FlagName, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      const flag = arg.split('=')[0]!;
      const name = flagNames.get(flag);
      if (name && !typed.has(name)) typed.set(name, flag);
      if (takesValue.has(flag) && !arg.includes('=')) i++;
    } else if (/^-[^\d.]/.test(arg)) {
      for (const letter of arg.slice(1)) {
        const name = flagNames.get(`-${letter}`);
        if (name && !typed.has(name)) typed.set(name, `-${letter}`);
      }
    }
  }
  return typed;
}
