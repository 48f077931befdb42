/** One finding about a spec, placed at file:line:column (1-based). */
export interface SpecProblem {
  severity: 'error' | 'warning';
  file: string;
  line: number;
  column: number;
  message: string;
}

/** `file:line:column: error: message`, the shape editors and terminals link. */
export function formatProblem(problem: SpecProblem): string {
  return `${problem.file}:${problem.line}:${problem.column}: ${problem.severity}: ${problem.message}`;
}
