/**
 * What strands-cli's Jinja templates write that nunjucks does not parse, rewritten to what it does
 * before a template is compiled or scanned: Python's slices with literal bounds (`x[:300]`,
 * `x[2:]`, `x[-5:-1]`) become the `pyslice` filter. Only inside `{{ }}` and `{% %}` blocks, so text
 * around them is never touched.
 */
export function jinjaDialect(source: string): string {
  if (!source.includes('[') || !source.includes(':')) return source;
  return source.replace(/\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g, (block) =>
    block.replace(/\[\s*(-?\d+)?\s*:\s*(-?\d+)?\s*\]/g, (_slice, start: string | undefined, end: string | undefined) => ` | pyslice(${start ?? 'none'}, ${end ?? 'none'})`),
  );
}

/** `value[start:end]` as Python answers it, for strings and lists. */
export function pySlice(value: unknown, start: number | null | undefined, end: number | null | undefined): unknown {
  const from = start ?? undefined;
  const to = end ?? undefined;
  if (typeof value === 'string' || Array.isArray(value)) return value.slice(from, to);
  return String(value ?? '').slice(from, to);
}
