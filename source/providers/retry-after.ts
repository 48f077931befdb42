/**
 * Milliseconds to wait from a 429/503 response's headers: `retry-after-ms` (OpenAI), `retry-after`
 * in seconds or as an HTTP date. Undefined when the server gave no hint.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A unit as written ("ms", "s", "secs", "minutes", "h", "days") → its length in ms. */
function unitLength(unit: string): number | undefined {
  const u = unit.toLowerCase();
  if (u === 'ms' || u.startsWith('millisecond')) return 1;
  if (u === 's' || u.startsWith('sec')) return 1000;
  if (u === 'm' || u.startsWith('min')) return 60_000;
  if (u === 'h' || u.startsWith('h')) return 3_600_000;
  if (u === 'd' || u.startsWith('day')) return 86_400_000;
  return undefined;
}

/** "6m0s", "1.5s", "300ms", "2 hours 5 minutes", "4 days 20 hours 9 minutes" → ms; undefined if none. */
export function parseDuration(text: string): number | undefined {
  let total = 0;
  let found = false;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)(?![a-z])/gi)) {
    const ms = unitLength(unit!);
    if (ms === undefined) continue;
    total += Number(amount) * ms;
    found = true;
  }
  return found ? Math.round(total) : undefined;
}

/**
 * When the limit resets, from rate-limit headers: Anthropic's `anthropic-ratelimit-*-reset`
 * (RFC 3339 times) and OpenAI's `x-ratelimit-reset-*` (durations such as "6m0s"). The latest wins:
 * a request needs every limit to have room again.
 */
export function resetHeaderMs(headers: Headers, now: number = Date.now()): number | undefined {
  const waits: number[] = [];
  headers.forEach((value, name) => {
    if (/^anthropic-ratelimit-.*-reset$/.test(name)) {
      const at = Date.parse(value);
      if (!Number.isNaN(at)) waits.push(Math.max(0, at - now));
    } else if (/^x-ratelimit-reset-/.test(name)) {
      const ms = parseDuration(value);
      if (ms !== undefined) waits.push(ms);
    }
  });
  return waits.length ? Math.max(...waits) : undefined;
}

/** "Please try again in 300ms" / "try again in 1.5s" in an error message (OpenAI's 429 text). */
export function textRetryAfterMs(message: string): number | undefined {
  const match = /(?:try again|retry) in ((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(message);
  return match ? parseDuration(match[1]!) : undefined;
}

/** A reset time read this long after it passed is taken as "now", not as tomorrow (clock skew, a late answer). */
const resetGraceMs = 15 * 60_000;

/** How far `zone`'s wall clock is ahead of UTC at `at` (ms); undefined for an unknown zone. */
function zoneOffsetMs(zone: string, at: number): number | undefined {
  try {
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(at);
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
    return wall - Math.floor(at / 1000) * 1000;
  } catch {
    return undefined; // RangeError: not an IANA zone
  }
}

/**
 * Milliseconds until the next `hour:minute` on the wall clock of `zone` (an IANA name such as
 * America/New_York, or UTC), else of this machine. A time just passed counts as now.
 */
function untilTimeOfDay(hour: number, minute: number, now: number, zone?: string): number {
  const offset = zone ? zoneOffsetMs(zone, now) : undefined;
  const shift = offset ?? -new Date(now).getTimezoneOffset() * 60_000;
  const wall = new Date(now + shift);
  let at = Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate(), hour, minute) - shift;
  if (at <= now - resetGraceMs) at += 86_400_000;
  return Math.max(0, at - now);
}

/**
 * When a subscription's usage limit resets, from the text agent CLIs print: "usage limit reached|<epoch>",
 * "resets at 3pm", "reset at 15:30", "resets at 2026-11-23T03:00:00Z", "try again in 4 days 20 hours",
 * "resets_in_seconds": 1234. Milliseconds from `now`; undefined when the text names no time.
 */
export function parseUsageLimitReset(text: string, now: number = Date.now()): number | undefined {
  const epoch = /limit reached\|(\d{10,13})/i.exec(text);
  if (epoch) {
    const value = Number(epoch[1]);
    return Math.max(0, (value < 1e12 ? value * 1000 : value) - now);
  }
  const seconds = /resets?_in_seconds"?\s*[:=]\s*(\d+)/i.exec(text);
  if (seconds) return Number(seconds[1]) * 1000;
  const iso = /resets? at (\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:?\d\d)?)/i.exec(text);
  if (iso && !Number.isNaN(Date.parse(iso[1]!))) return Math.max(0, Date.parse(iso[1]!) - now);
  const clock = /resets?(?: at)? (\d{1,2})(?::(\d\d))?\s*(am|pm)?\b(?:\s*\(?((?:[A-Za-z_]+\/[A-Za-z_\/+-]+)|UTC|GMT)\)?)?/i.exec(text);
  if (clock && (clock[2] !== undefined || clock[3] !== undefined)) {
    let hour = Number(clock[1]);
    const meridiem = clock[3]?.toLowerCase();
    if (meridiem === 'pm' && hour < 12) hour += 12;
    if (meridiem === 'am' && hour === 12) hour = 0;
    if (hour < 24) return untilTimeOfDay(hour, Number(clock[2] ?? 0), now, clock[4]);
  }
  const within = /(?:resets?|try again) in ((?:\d+(?:\.\d+)?\s*[a-z]+[\s,]*(?:and\s+)?)+)/i.exec(text);
  return within ? parseDuration(within[1]!) : undefined;
}
