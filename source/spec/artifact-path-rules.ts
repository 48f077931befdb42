import { isAbsolute } from 'node:path';

/** strands-cli's `--out` default. */
export const defaultArtifactDir = './artifacts';

/**
 * What is wrong with a rendered artifact path by strands-cli's rules, whatever is on disk: empty,
 * absolute, or stepping up with `..`; undefined when none is broken. Checked by `acode validate`
 * on a path with no template in it, and by the run on every rendered path (engine/artifacts.ts).
 */
export function brokenArtifactPathRule(rendered: string): string | undefined {
  const shown = rendered.trim();
  if (!shown) return 'artifact path renders to an empty string; give it a relative file name such as report.md';
  if (isAbsolute(shown)) return `absolute paths are not allowed in artifacts: ${shown}; use a path relative to the output folder (--out, default ${defaultArtifactDir})`;
  if (shown.split('/').includes('..')) return `path traversal is not allowed in artifacts: ${shown}; a path cannot contain '..' components`;
  return undefined;
}
