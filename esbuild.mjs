// Bundles every entry point of Coroscope with source maps. esbuild only bundles: types are
// checked by `tsc --noEmit`. Each entry names its platform and format, as the layer rules say:
// the runtime library, CLI and runtime host run in Node (cjs); the extension runs in VS Code's
// extension host (cjs, `vscode` external); the webview runs in a browser (iife).
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** @type {Array<{in: string, out: string, platform: 'node' | 'browser', format?: 'cjs' | 'iife', external?: string[], loader?: Record<string, 'file'>}>} */
const entries = [
  { in: 'runtime/index.ts', out: 'dist/runtime/index.js', platform: 'node' },
  { in: 'runtime/cli/main.ts', out: 'dist/cli.js', platform: 'node' },
  { in: 'runtime/host/main.ts', out: 'dist/runtime-host.js', platform: 'node' },
  { in: 'extension/extension.ts', out: 'dist/extension.js', platform: 'node', external: ['vscode'] },
  { in: 'extension/debug/standalone.ts', out: 'dist/debugAdapter.js', platform: 'node', external: ['vscode'] },
  // The webview's CSS (with the codicon font, copied beside it) goes to dist/webview/main.css.
  { in: 'webview/main.ts', out: 'dist/webview/main.js', platform: 'browser', format: 'iife', loader: { '.ttf': 'file' } },
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
      sourcemap: true,
      // Keep function names: the inspector shows them as frame names.
      keepNames: true,
      minify: production,
      external: e.external ?? [],
      loader: e.loader ?? {},
      logLevel: 'warning',
      ...(watch ? {} : {}),
    }),
  ),
);
console.log(`esbuild: built ${present.length} entr${present.length === 1 ? 'y' : 'ies'}: ${present.map((e) => e.out).join(', ')}`);
