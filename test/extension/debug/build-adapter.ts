// Builds the bundles the adapter tests run, dist/debugAdapter.js and dist/runtime-host.js with
// its line debugger's worker (dist/line-debug-worker.js) and the TypeScript transpiler a
// program without one of its own gets (dist/typescript-transpiler.js),
// exactly as `node esbuild.mjs` builds those entries (same options), so that the tests always
// drive the current sources even when the test runner is used without `npm run build`.
// Only these entries: a half-written entry of another layer cannot break these tests.
// Test files run two at a time and each builds in its `before`: every output file is written
// beside its place and renamed there (atomic), so a host another file spawns meanwhile never
// reads a half-written (or empty) bundle.

import { build } from 'esbuild';
import { renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(__dirname, '..', '..', '..');
export const ADAPTER_SCRIPT = join(PROJECT_ROOT, 'dist', 'debugAdapter.js');
export const HOST_SCRIPT = join(PROJECT_ROOT, 'dist', 'runtime-host.js');

export async function buildAdapterAndHost(): Promise<void> {
  const entries = [
    { in: 'runtime/host/main-thread/main.ts', out: HOST_SCRIPT },
    {
      in: 'runtime/host/main-thread/bundled-transpiler.ts',
      out: join(PROJECT_ROOT, 'dist', 'typescript-transpiler.js'),
      library: true,
    },
    { in: 'runtime/host/worker/line-debug-worker-main.ts', out: join(PROJECT_ROOT, 'dist', 'line-debug-worker.js') },
    { in: 'extension/debug/standalone.ts', out: ADAPTER_SCRIPT },
  ];
  const results = await Promise.all(
    entries.map((e) =>
      build({
        write: false,
        entryPoints: [join(PROJECT_ROOT, e.in)],
        outfile: e.out,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        sourcemap: !('library' in e),
        minify: 'library' in e,
        keepNames: true,
        external: ['vscode'],
        logLevel: 'silent',
      }),
    ),
  );
  for (const { outputFiles } of results) {
    for (const f of outputFiles) {
      const part = `${f.path}.${process.pid}.part`;
      writeFileSync(part, f.contents);
      renameSync(part, f.path);
    }
  }
}
