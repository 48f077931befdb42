/**
 * The terminal's size as the browser lays out its screen — the painted first frame and Ink's frames
 * must use the same fallbacks, or the two would differ when the terminal does not report one.
 */
export function terminalSize(stdout: { columns?: number; rows?: number }): { columns: number; rows: number } {
  return { columns: stdout.columns || 100, rows: stdout.rows || 30 };
}
