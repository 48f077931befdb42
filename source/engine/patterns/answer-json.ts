/**
 * Reading a decision out of a model's answer the way strands-cli reads it: the whole answer as
 * JSON, else the first ```json fenced block, else the first bare object (or array) in the text.
 * Pure and deterministic, so a resume reads a recorded answer exactly as the run that got it did.
 */

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Answers are bounded (64 MiB); the scans below are linear, but nobody's decision is that long. */
const scanLimit = 1 << 20;
/** How many opening brackets a bare value is looked for from. */
const bareTries = 64;

/** The first JSON value an answer holds: whole, fenced, or a bare `{…}` / `[…]` holding `key` (when given). */
export function answerJson(answer: string, shape: 'object' | 'array' | 'any', key?: string): unknown {
  const text = answer.length > scanLimit ? answer.slice(0, scanLimit) : answer;
  const fits = (value: unknown) =>
    value !== undefined && value !== null && typeof value === 'object' && (shape === 'any' || (shape === 'array') === Array.isArray(value));
  const whole = tryJson(text.trim());
  if (fits(whole)) return whole;
  for (const fence of text.matchAll(/```(?:json|JSON)?[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const value = tryJson((fence[1] ?? '').trim());
    if (fits(value)) return value;
  }
  // A bare value inside prose: from each opening bracket, the shortest balanced span that parses.
  const open = shape === 'array' ? '[' : shape === 'object' ? '{' : '[{';
  // Each try reads to the end at worst: a bounded number of them keeps a hostile answer linear.
  let tries = 0;
  for (let start = 0; start < text.length && tries < bareTries; start++) {
    if (!open.includes(text[start]!)) continue;
    tries++;
    const end = balancedEnd(text, start);
    if (end < 0) continue;
    const span = text.slice(start, end + 1);
    if (key !== undefined && !span.includes(`"${key}"`)) continue;
    const value = tryJson(span);
    if (fits(value)) return value;
  }
  return undefined;
}

/** Where the bracket opened at `start` closes (strings skipped), or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** What a decision step's answer said, for messages: its start, on one line. */
export function answerGist(answer: string, length = 120): string {
  const line = answer.replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length)}…` : line;
}

/**
 * A pattern's walk over its recorded answers, computed once per state of the progress: the
 * scheduler asks ready(), shape(), context() and finished() of the same state, and each would walk
 * the whole log again (a 1,000-step loop would cost a million reads).
 */
export function oncePerEvent<P extends { last_event_id: number; steps_done: number }, T>(walk: (progress: P) => T): (progress: P) => T {
  let last: { progress: P; id: number; done: number; value: T } | undefined;
  return (progress) => {
    if (last && last.progress === progress && last.id === progress.last_event_id && last.done === progress.steps_done) return last.value;
    const value = walk(progress);
    last = { progress, id: progress.last_event_id, done: progress.steps_done, value };
    return value;
  };
}

/** A reading of a recorded answer, kept by step id: a completed step's answer never changes. */
export function perAnswer<T>(read: (answer: string) => T): (step: string, answer: string) => T {
  const known = new Map<string, { answer: string; value: T }>();
  return (step, answer) => {
    const hit = known.get(step);
    if (hit && hit.answer === answer) return hit.value;
    const value = read(answer);
    known.set(step, { answer, value });
    return value;
  };
}
