import { templateLimits } from '../../spec/template-limits.js';

/**
 * Answers joined into one text for a template (`last_response` after a fan-out) or a request:
 * joined only until the text passes the most a template may write (templateLimits.outputChars) —
 * a template that writes it then fails at that limit, saying so (template_error), and one that
 * does not read it runs. Joined whole, 600 workers' 1 MB answers passed what a JavaScript string
 * can hold: a stack trace at every run and resume.
 */
export function joinedAnswers(parts: Iterable<string>, separator: string): string {
  const kept: string[] = [];
  let length = 0;
  for (const part of parts) {
    kept.push(part);
    length += part.length + separator.length;
    if (length > templateLimits.outputChars) break;
  }
  return kept.join(separator);
}
