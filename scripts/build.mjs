// Bundles the CLI into dist/: one ESM entry plus lazily loaded chunks, so plain commands
// (--version, sessions list) never parse React or Ink.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

// Ink's Output rebuilds every character of every row each frame; source/ui/ink-output.ts is the same
// class keeping what it learnt between frames (the live run view redraws 10 times a second). It is a
// port of one Ink version's file: another Ink must be ported again, not silently used with it.
const inkOutputPort = '6.8.';
const inkVersion = JSON.parse(readFileSync(`${root}node_modules/ink/package.json`, 'utf8')).version;
if (!inkVersion.startsWith(inkOutputPort)) {
  throw new Error(`source/ui/ink-output.ts ports Ink ${inkOutputPort}x's build/output.js, but Ink ${inkVersion} is installed: compare the two files and port the changes (then update inkOutputPort in scripts/build.mjs)`);
}
const inkOutput = {
  name: 'ink-output',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]output\.js$/ }, () => ({
      contents: `export { default } from ${JSON.stringify(`${root}source/ui/ink-output.ts`)};`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};
// Ink's measure-text.js and wrap-text.js cache every text they ever measured or wrapped; the ports in
// source/ui/ink-text-caches.ts keep what the last two frames used.
const inkTextCaches = {
  name: 'ink-text-caches',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/](measure|wrap)-text\.js$/ }, (args) => ({
      contents: `export { ${args.path.endsWith('measure-text.js') ? 'measureText' : 'wrapText'} as default } from ${JSON.stringify(`${root}source/ui/ink-text-caches.ts`)};`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};
// string-width segments every string past ASCII into graphemes, and Ink measures every text twice a
// frame: source/ui/text-width.ts gives the same widths, learning each character's once. Every module
// that imports string-width 8 gets it (wrap-ansi has string-width 7 of its own, left as it is).
const textWidth = {
  name: 'text-width',
  setup(bundle) {
    bundle.onResolve({ filter: /^string-width$/ }, (args) => {
      if (args.importer.endsWith('source/ui/text-width.ts') || /[\\/]node_modules[\\/]wrap-ansi[\\/]/.test(args.importer)) return undefined;
      return { path: `${root}source/ui/text-width.ts` };
    });
  },
};
// NO_COLOR (no-color.org) is honoured by the screens as by the plain lines (cli.tsx): chalk, which
// Ink colours with, reads FORCE_COLOR and --no-color but not NO_COLOR. Ink's colorize (the colour
// of a Text, a background, a border) leaves the text as it is under NO_COLOR; bold, dim, underline
// and inverse are styles, not colours, and stay (the browser's selected row is drawn inverse).
const inkNoColor = {
  name: 'ink-no-color',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]colorize\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const guarded = source.replace('if (!color) {', "if (!color || noColor) {");
      if (guarded === source) throw new Error(`${args.path} has no 'if (!color) {' to honour NO_COLOR at: port the guard to this Ink`);
      return { contents: `const noColor = 'NO_COLOR' in process.env;\n${guarded}`, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
// pg asks at load whether it runs on Cloudflare Workers: on Node 20 (no navigator) by making a
// fetch Response, which loads Node's whole undici (20–40 ms of every 'sessions list --remote',
// 'sync' and resume with a store). acode runs on Node alone: the answer is no.
const pgOnNode = {
  name: 'pg-on-node',
  setup(bundle) {
    bundle.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const probe = 'function isCloudflareRuntime() {';
      if (!source.includes(probe)) throw new Error(`${args.path} has no '${probe}' to answer: port the pg-on-node plugin to this pg`);
      return { contents: source.replace(probe, `${probe}\n  return false;`), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};
// Fixes of Ink 6.8 carried by patches/, applied by patch-package on install (npm's prepare); Ink 7,
// which has the first and the last, needs Node 22. Its line-at-a-time renderer (incrementalRendering, used by
// the run view) moved the cursor up one row too few after a frame ending in a newline — every frame
// not filling the terminal — so each frame was drawn a row lower (Ink #910); it moved down over an
// unchanged line with cursor-next-line, which does not scroll on the bottom row, so a frame growing
// there lost a row and the rows above it; and a frame shrinking from the terminal's height to less
// was written without the newline its renderer counted, so the next frame lost a row. And its
// throttles set a timer after every frame drawn at once, waking the process twice a frame for nothing.
const inkBuild = `${root}node_modules/ink/build/`;
const inkFixes = [
  ['log-update.js', 'cursorUp(previousLines.length - 1)'],
  ['log-update.js', 'nextLines[i] === previousLines[i] && i + 1 < previousLines.length'],
  ['ink.js', 'clearTerminal + this.fullStaticOutput + outputToRender'],
  ['ink.js', 'const throttle = (fn, wait = 0, _options) =>'],
];
if (!inkFixes.every(([file, fixed]) => readFileSync(`${inkBuild}${file}`, 'utf8').includes(fixed))) {
  throw new Error('node_modules/ink is missing the fixes in patches/ (run `npx patch-package`, or `npm install` again): the run view would lose rows');
}
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
  // pg loads pg-native only when asked for its native binding, which acode never is.
  external: ['chokidar', 'fsevents', 'pg-native'],
  define: { 'process.env.NODE_ENV': '"production"' },
  plugins: [inkOutput, inkTextCaches, textWidth, inkNoColor, pgOnNode],
  banner: {
    // Bundled CommonJS dependencies (nunjucks, signal-exit) still call require().
    js: "import { createRequire as __acodeCreateRequire } from 'node:module'; const require = __acodeCreateRequire(import.meta.url);",
  },
});
