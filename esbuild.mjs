// Bundles every entry point of Coroscope with source maps. esbuild only bundles: types are
// checked by `tsc --noEmit`. Each entry names its platform and format, as the layer rules say:
// the runtime library, CLI and runtime host run in Node (cjs); the extension runs in VS Code's
// extension host (cjs, `vscode` external); the webview runs in a browser (iife).
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/**
 * @type {Array<{in: string, out: string, platform: 'node' | 'browser', format?: 'cjs' | 'iife', external?:
 * string[], loader?: Record<string, 'file'>, sources?: boolean, library?: boolean, text?: boolean}>}
 */
const entries = [
  { in: 'runtime/index.ts', out: 'dist/runtime/index.js', platform: 'node' },
  // `sources`: the bundles that record runs get their sources' hashes written beside them (below).
  { in: 'runtime/cli/main.ts', out: 'dist/cli.js', platform: 'node', sources: true },
  // `coroscope replay FILE --log ...` alone (bin/coroscope.js runs it): the line replay host forked sooner.
  { in: 'runtime/cli/replay-log-main.ts', out: 'dist/cli-replay-log.js', platform: 'node' },
  // The host's and its worker's maps keep their mappings but not the sources' text: the .vsix ships the
  // sources themselves (runtime/**/*.ts, opened from a frame), and the text twice would not fit its 3 MB.
  { in: 'runtime/host/main-thread/main.ts', out: 'dist/runtime-host.js', platform: 'node', sources: true, text: false },
  // Loaded ahead of the host's bundle (`--require`) where a host is forked: starts its worker meanwhile.
  {
    in: 'runtime/host/main-thread/host-preload.ts',
    out: 'dist/runtime-host-preload.js',
    platform: 'node',
    text: false,
  },
  // The runtime host's line debugger worker: its own bundle, a seventh of the host's (line-debug-worker-main.ts).
  {
    in: 'runtime/host/worker/line-debug-worker-main.ts',
    out: 'dist/line-debug-worker.js',
    platform: 'node',
    text: false,
  },
  // The TypeScript transpiler a user's program gets when its folder has none (Sucrase,
  // program-transpiler.ts), also the one of a program's ES modules (program-loader.ts): loaded
  // only for those; `library`: minified, no source map (nobody steps into it), so the .vsix stays small.
  {
    in: 'runtime/host/main-thread/bundled-transpiler.ts',
    out: 'dist/typescript-transpiler.js',
    platform: 'node',
    library: true,
  },
  // The extension's own map keeps its mappings (stack traces name extension/*.ts lines) but not the
  // sources' text: nobody steps into the extension, and the .vsix stays under 3 MB.
  { in: 'extension/extension.ts', out: 'dist/extension.js', platform: 'node', external: ['vscode'], text: false },
  { in: 'extension/debug/standalone.ts', out: 'dist/debugAdapter.js', platform: 'node', external: ['vscode'] },
  // The webview's CSS (with the codicon font, copied beside it) goes to dist/webview/main.css.
  {
    in: 'webview/main.ts',
    out: 'dist/webview/main.js',
    platform: 'browser',
    format: 'iife',
    loader: { '.ttf': 'file' },
  },
  { in: 'bench/runtime.bench.ts', out: 'dist/bench/runtime.bench.js', platform: 'node' },
  { in: 'bench/crawl.bench.ts', out: 'dist/bench/crawl.bench.js', platform: 'node' },
];

// Entries whose source does not exist yet are skipped, so the build stays green while
// the layers above the runtime are being written.
const present = entries.filter((e) => existsSync(e.in));

await Promise.all(
  present.map((e) =>
    build({
      entryPoints: [e.in],
      outfile: e.out,
      bundle: true,
      platform: e.platform,
      format: e.format ?? 'cjs',
      target: e.platform === 'node' ? 'node20' : 'es2022',
      sourcemap: e.library !== true,
      sourcesContent: e.text !== false,
      // Keep function names: the inspector shows them as frame names.
      keepNames: true,
      minify: production || e.library === true,
      external: e.external ?? [],
      loader: e.loader ?? {},
      logLevel: 'warning',
      ...(watch ? {} : {}),
    }),
  ),
);
// A recording names the sources it ran by their hashes (runtime/record/source-hashes.ts): the files
// the bundle's source map names, as they are on disk now (what esbuild just read), hashed here once,
// beside the bundle with the bundle's own hash (a bundle built again without this file is told by
// it), so that a runtime host neither parses its 2 MB map nor hashes every source at its first
// recording copy or open. A source that is no file here (a dependency's map naming a URL) has none.
const sha256 = (data) => createHash('sha256').update(data).digest('hex');
for (const e of present.filter((x) => x.sources === true)) {
  const map = JSON.parse(readFileSync(`${e.out}.map`, 'utf8'));
  const sources = map.sources.flatMap((path) => {
    const file = resolvePath(dirname(e.out), path);
    return existsSync(file) ? [{ path, sha256: sha256(readFileSync(file)) }] : [];
  });
  const part = `${e.out}.sources.json.${process.pid}.part`;
  writeFileSync(part, JSON.stringify({ bundleSha256: sha256(readFileSync(e.out)), sources }));
  renameSync(part, `${e.out}.sources.json`);
}
console.log(
  `esbuild: built ${present.length} entr${present.length === 1 ? 'y' : 'ies'}: ${present.map((e) => e.out).join(', ')}`,
);
