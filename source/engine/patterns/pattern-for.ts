import type { WorkflowSpec } from '../../spec/schema.js';
import type { Pattern } from '../pattern.js';
import { chainPattern } from './chain.js';
import { parallelPattern } from './parallel.js';
import { workflowPattern } from './workflow.js';

/** The plug-in that runs a spec's pattern. */
export function patternFor(spec: WorkflowSpec): Pattern {
  const pattern = spec.pattern;
  switch (pattern.type) {
    case 'chain':
      return chainPattern(pattern.config.steps);
    case 'workflow':
      return workflowPattern(pattern.config);
    case 'parallel':
      return parallelPattern(pattern.config);
  }
}
