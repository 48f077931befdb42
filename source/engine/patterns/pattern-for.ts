import type { WorkflowSpec } from '../../spec/schema.js';
import type { Pattern } from '../pattern.js';
import { chainPattern } from './chain.js';

/** The plug-in that runs a spec's pattern. */
export function patternFor(spec: WorkflowSpec): Pattern {
  return chainPattern(spec.pattern.config.steps);
}
