/**
 * When a usage limit an agent CLI reports lifts, read from its message, as ms from `now`:
 * - claude's older form, "Claude AI usage limit reached|1767225600" (epoch seconds after the bar);
 * - "try again in 3 days 6 hours 57 minutes" (codex), "resets in 2 hours";
 * - "resets 3pm", "resets at 3:05 PM", "try again at 3:28 PM" (the next such local time).
 * Undefined when the message names no time: the policy's backoff decides.
 */
export function resetDelayMs(message: string, now: Date = new Date()): number | undefined {
  const epoch = /\|(\d{10})(?!\d)/.exec(message);
  if (epoch) return Math.max(0, Number(epoch[1]) * 1000 - now.getTime());
  const span = /(?:try again|resets?)\s+in\s+((?:\d+\s*(?:days?|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,]*(?:and\s+)?)+)/i.exec(message);
  if (span) {
    const units: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };
    let ms = 0;
    for (const part of span[1]!.matchAll(/(\d+)\s*([a-z]+)/gi)) ms += Number(part[1]) * (units[part[2]![0]!.toLowerCase()] ?? 0);
    return ms;
  }
  const clock = /(?:resets|try again)(?:\s+at)?\s+(\d{1,2})(?::(\d{2}))?\s*([ap]m)\b/i.exec(message);
  if (clock) {
    const hour = (Number(clock[1]) % 12) + (clock[3]!.toLowerCase() === 'pm' ? 12 : 0);
    const at = new Date(now);
    at.setHours(hour, Number(clock[2] ?? 0), 0, 0);
    if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
    return at.getTime() - now.getTime();
  }
  return undefined;
}
