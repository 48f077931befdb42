import { ContextExhaustedError, ProviderError, RateLimitError } from '../engine/stop-errors.js';
import { resetDelayMs } from './reset-time.js';

/**
 * What an agent CLI's error result means for a continuation, from its text (both CLIs report limits
 * only in words): a usage or rate limit waits for its reset; a context overflow starts a fresh
 * conversation; anything else is a failure with the CLI's own words.
 */
export function cliFailure(cli: string, message: string, extra: { status?: number } = {}): Error {
  if (extra.status === 429 || /usage limit|rate limit|limit reached|hit your (?:usage )?limit|too many requests|overloaded/i.test(message)) {
    return new RateLimitError(`${cli}: ${message}`, resetDelayMs(message), `${cli} usage limit`);
  }
  if (/prompt is too long|context window|context length|maximum context|too many tokens|exceeds? the (?:model's )?context/i.test(message)) return new ContextExhaustedError(`${cli}: ${message}`);
  return new ProviderError(`${cli}: ${message}`, false);
}
