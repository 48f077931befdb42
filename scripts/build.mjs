// Bundles the CLI into dist/: one ESM entry plus lazily loaded chunks, so plain commands
// (--version, sessions list) never parse React or Ink.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

const root = new URL('..', import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { cli: 'source/cli.tsx', bench: 'bench/main.ts', 'ink-floor': 'bench/ink-floor.tsx', 'frame-clock': 'bench/frame-clock.ts', 'cpu-clock': 'bench/cpu-clock.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
  // Ink imports react-devtools-core only when DEV is set; an empty module keeps the bundle loadable.
  alias: { 'react-devtools-core': './scripts/empty-module.js' },
  // nunjucks' file watcher is never used (templates are strings); keep its optional deps out.
  external: ['chokidar', 'fsevents'],
  define: { 'process.env.NODE_ENV': '"production"' },
  banner: {
    // Bundled CommonJS dependencies (nunjucks, signal-exit) still call require().
    js: "import { createRequire as __acodeCreateRequire } from 'node:module'; const require = __acodeCreateRequire(import.meta.url);",
  },
});
