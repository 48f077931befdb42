// Bundles the CLI into dist/: one ESM entry plus lazily loaded chunks, so plain commands
// (--version, sessions list) never parse React or Ink.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

// Ink's Output rebuilds every character of every row each frame; source/ui/ink-output.ts is the same
// class keeping what it learnt between frames (the live run view redraws 10 times a second). It is a
// port of one Ink version's file: another Ink must be ported again, not silently used with it.
// Kept while it cuts the run view's CPU by over 1% of a core (`node dist/bench.js ink`: 8.6–9.1%);
// docs/development.md, and a draft upstream issue in docs/upstream/.
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
// string-width segments every string past ASCII into graphemes, and Ink measures every text twice a
// frame: source/ui/text-width.ts gives the same widths, learning each character's once. Every module
// that imports string-width 8 gets it (wrap-ansi has string-width 7 of its own, left as it is).
// Kept while it cuts over 1% of a core (`node dist/bench.js ink`: 2.6–3.5%).
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
// Upstream: not filed yet (Ink colours a Text whatever NO_COLOR says); the nearest, Ink #248 (a
// switch to turn colour off), was closed pointing at chalk's --no-color.
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
// Fixes of Ink 6.8 carried by patches/ (patch-package, on install: npm's prepare), each with the
// upstream issue it tracks; Ink 7, which has some of them, needs Node 22. docs/development.md lists them.
const inkBuild = `${root}node_modules/ink/build/`;
const inkFixes = [
  // Its line-at-a-time renderer (incrementalRendering, the run view's) moved the cursor up one row
  // too few after a frame ending in a newline — every frame not filling the terminal — so each
  // frame was drawn a row lower. Upstream: Ink #910.
  ['log-update.js', 'cursorUp(previousLines.length - 1)'],
  // It moved down over an unchanged line with cursor-next-line, which does not scroll on the bottom
  // row: a frame growing there lost a row and the rows above it. Upstream: not filed yet.
  ['log-update.js', 'nextLines[i] === previousLines[i] && i + 1 < previousLines.length'],
  // A frame shrinking from the terminal's height to less was written without the newline its
  // renderer counted, so the next frame lost a row. Upstream: Ink #974 (merged, in Ink 7.1.1).
  ['ink.js', 'clearTerminal + this.fullStaticOutput + outputToRender'],
  // Its throttles set a timer after every frame drawn at once, waking the process twice a frame for
  // nothing (CPU, not a wrong frame: 0.9–1.4% of a core while a step streams, `node dist/bench.js
  // ink`). Upstream: not filed yet.
  ['ink.js', 'const throttle = (fn, wait = 0, _options) =>'],
  // measure-text and wrap-text kept every text they ever measured or wrapped, for good: a bounded
  // cache. Upstream: Ink #986 (closed: Ink 7 bounds them).
  ['measure-text.js', 'cache.size >= maxCacheEntries'],
  ['wrap-text.js', 'cache.size >= maxCacheEntries'],
  // wrap-text's key ran a text and its width together: "ab" at 12 columns and "ab1" at 2 were one
  // key, and the second was given the first's wrapping. Upstream: Ink #998 (merged).
  ['wrap-text.js', '`${maxWidth}\\0${wrapType}\\0${text}`'],
];
const missing = inkFixes.filter(([file, fixed]) => !readFileSync(`${inkBuild}${file}`, 'utf8').includes(fixed));
if (missing.length > 0) {
  throw new Error(`node_modules/ink is missing the fixes in patches/ (${missing.map(([file]) => file).join(', ')}; run \`npx patch-package\`, or \`npm install\` again): the run view would lose rows`);
}
rmSync(`${root}dist`, { recursive: true, force: true });

const options = {
  absWorkingDir: root,
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
  banner: {
    // Bundled CommonJS dependencies (nunjucks, signal-exit) still call require().
    js: "import { createRequire as __acodeCreateRequire } from 'node:module'; const require = __acodeCreateRequire(import.meta.url);",
  },
};
await build({
  ...options,
  entryPoints: { cli: 'source/cli.tsx', bench: 'bench/main.ts', 'ink-floor': 'bench/ink-floor.tsx', 'frame-clock': 'bench/frame-clock.ts', 'cpu-clock': 'bench/cpu-clock.ts', 'run-view-cpu': 'bench/run-view-cpu.tsx' },
  outdir: 'dist',
  plugins: [inkOutput, textWidth, inkNoColor, pgOnNode],
});
// With --bench (npm run bench): the bench's run view once more with Ink's own Output and
// string-width (patches/ applied as to the CLI), once without each port alone, and once with the
// ports but the spinner the run view turned on its own tick before ink-spinner came back
// (bench/tick-spinner.tsx): what each port and ink-spinner's timer cost is measured against them
// (bench/ink-ports.ts).
if (process.argv.includes('--bench')) {
  // Ink's own throttle (es-toolkit's) in place of the patch's, for what the patch cuts.
  const inkStockThrottle = {
    name: 'ink-stock-throttle',
    setup(bundle) {
      bundle.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/]ink\.js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const start = source.indexOf('const throttle = (fn, wait = 0, _options) =>');
        const end = source.indexOf('\n};\n', start) + '\n};\n'.length;
        const contents = `${source.slice(0, start)}import { throttle } from 'es-toolkit/compat';\n${source.slice(end)}`;
        return { contents, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
  const ports = { output: inkOutput, 'text-width': textWidth };
  const variants = [
    ['stock', []],
    ...Object.keys(ports).map((left) => [`without-${left}`, Object.entries(ports).filter(([name]) => name !== left).map(([, plugin]) => plugin)]),
    ['tick-spinner', Object.values(ports), { ...options.alias, 'ink-spinner': './bench/tick-spinner.tsx' }],
    ['stock-throttle', [...Object.values(ports), inkStockThrottle]],
  ];
  await Promise.all(
    variants.map(([variant, plugins, alias = options.alias]) =>
      build({ ...options, alias, entryPoints: { 'run-view-cpu': 'bench/run-view-cpu.tsx' }, outdir: `dist/ink-ports/${variant}`, plugins: [...plugins, inkNoColor] }),
    ),
  );
}
