import { ProviderError } from '../engine/stop-errors.js';
import { printable } from '../printable-text.js';
import { redact } from '../secrets/redactor.js';

/**
 * The model declined to answer (OpenAI's `refusal` or finish_reason `content_filter`, Anthropic's
 * stop_reason `refusal`): an empty or apologetic answer journaled as the step's result was handed
 * to every later step as if answered. Not retried on its own — the same input is declined again —
 * so the session pauses saying what the model said; the person changes the input and resumes, or
 * resumes to try once more.
 */
export function declined(url: string, why: 'refusal' | 'content_filter', said: string): ProviderError {
  const what = printable(redact(said.trim())).slice(0, 200);
  return new ProviderError(`the model at ${url} declined to answer (${why})${what ? `: "${what}"` : ''}`, false, { detail: `declined (${why})` });
}
