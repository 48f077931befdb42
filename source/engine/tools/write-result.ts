import { relative } from 'node:path';

/**
 * What a file_write tells the model. One function for the write itself and for a resume that finds
 * the write already applied by a process that died before journaling the result, so both say the same.
 */
export function writeResultText(cwd: string, path: string, bytes: number, already: boolean): string {
  const shown = relative(cwd, path) || path;
  return already ? `${shown} already has this content (${bytes} bytes); not written again` : `wrote ${shown} (${bytes} bytes)`;
}
