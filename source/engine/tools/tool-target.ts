/** ` path` (or ` /pattern/`) when a tool call names one: how progress lines and the view show a call. */
export function toolTarget(args: Record<string, unknown>): string {
  return typeof args.path === 'string' ? ` ${args.path}` : typeof args.pattern === 'string' ? ` /${args.pattern}/` : '';
}
