// Here, away from the retention settings' zod schema: the argument checks of every command use
// ageHelp, and loading zod (the largest module acode has) for one string cost every command.

const units = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
const durationPattern = /^(\d+)\s*([smhdw])$/;

/** "30d" → milliseconds; undefined for anything that is not a count and one of s, m, h, d, w. */
export function parseAge(text: string): number | undefined {
  const match = durationPattern.exec(text.trim());
  return match ? Number(match[1]) * units[match[2] as keyof typeof units] : undefined;
}

export const ageHelp = 'a count and a unit: 90m, 12h, 30d, 2w';
