import { didYouMean } from './closest-name.js';
import { cliFlags, longFlags, shortFlags, typedFlag, valueFlags, type FlagName } from './command-table.js';
import { ageHelp } from './config/age.js';

const takesValue = new Set(valueFlags);

/**
 * Each flag of argv, up to `--`: a long one as typed before any `=` (with the word after it, `next`,
 * when it takes a value and was given none with `=`: that word is its value, not read as a flag),
 * or each letter of a bundle of short ones (`-hv`). Both readers of the flags walk argv by it.
 */
function* flagWords(argv: readonly string[]): Generator<{ flag: string; separate: boolean; next?: string; word: string }> {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return;
    if (arg.startsWith('--')) {
      const flag = arg.split('=')[0]!;
      const separate = takesValue.has(flag) && !arg.includes('=');
      yield { flag, separate, next: separate ? argv[i + 1] : undefined, word: arg };
      if (separate) i++;
    } else if (/^-[^\d.]/.test(arg)) {
      for (const letter of arg.slice(1)) yield { flag: `-${letter}`, separate: false, word: arg };
    }
  }
}

/**
 * A flag that takes no value, as typed: alone, or with `=true` / `=false`, which the parser reads as
 * such. Any other value it reads as false without a word: `--dry-run=yes` ran the resume for real,
 * `cleanup --dry-run=1 --yes` deleted.
 */
function booleanValueIsClear(word: string, flag: string): boolean {
  if (!word.startsWith('--') || !word.includes('=')) return true;
  const value = word.slice(flag.length + 1);
  return value === 'true' || value === 'false';
}

/**
 * The first flag acode does not take, as a message naming the closest one it does ("unknown flag
 * '--nmae' — did you mean '--name'?"); undefined when every flag is known. Read before the parser,
 * which would exit on its own with a bare "Unknown flag".
 */
export function unknownFlagMessage(argv: readonly string[]): string | undefined {
  const long = new Set(longFlags());
  const short = new Set(shortFlags());
  for (const { flag, separate, next, word } of flagWords(argv)) {
    if (!flag.startsWith('--')) {
      // Short flags may be bundled (-hv): each letter must be one acode takes.
      if (!short.has(flag)) return `unknown flag '${flag}' (short flags: ${[...short].join(', ')})`;
      continue;
    }
    if (!long.has(flag)) return `unknown flag '${flag}'${didYouMean(flag, long)}`;
    if (!separate) {
      if (!takesValue.has(flag) && !booleanValueIsClear(word, flag)) {
        // The parser takes --no-x=true for no flag at all: only the flag alone is offered.
        return `${flag} takes no value: write ${flag} alone${flag.startsWith('--no-') ? '' : ` (or ${flag}=true / ${flag}=false)`}: nothing was run`;
      }
      continue;
    }
    // The parser takes a flag as nothing at all, not as a value: `--out --dry-run` was an empty
    // --out and a --dry-run this check never saw, `--out` last an empty one.
    if (next === undefined || next.startsWith('--') || (/^-[^\d.]/.test(next) && !next.includes('='))) {
      return `${flag} needs a value: ${flag} <value>${next?.startsWith('-') ? ` (one that starts with a dash is written ${flag}=${next})` : ''}`;
    }
    // The parser would read a negative age as a flag and say only "Unknown flag": no age is negative.
    if (flag === '--older-than' && next.startsWith('-')) return `--older-than '${next}' is not an age: use ${ageHelp}`;
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
 * default.
 */
export function typedFlags(argv: readonly string[]): Map<FlagName, string> {
  const typed = new Map<FlagName, string>();
  for (const { flag } of flagWords(argv)) {
    const name = flagNames.get(flag);
    if (name && !typed.has(name)) typed.set(name, flag);
  }
  return typed;
}
