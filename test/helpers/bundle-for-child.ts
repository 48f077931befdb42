import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

/**
 * Bundles a small TypeScript program that imports project sources into one .mjs a plain `node`
 * child can run: crash tests need a real process to SIGKILL, running our real code.
 */
export function bundleForChild(source: string): string {
  const dir = tempDir('acode-child-');
  const entry = join(dir, 'child.ts');
  const out = join(dir, 'child.mjs');
  buildSync({
    stdin: { contents: source, resolveDir: process.cwd(), loader: 'ts', sourcefile: entry },
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'error',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    external: ['chokidar', 'fsevents'],
  });
  return out;
}
