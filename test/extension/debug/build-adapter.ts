// Builds the two bundles the adapter tests run, dist/debugAdapter.js and dist/runtime-host.js,
// exactly as `node esbuild.mjs` builds those entries (same options), so that the tests always
// drive the current sources even when the test runner is used without `npm run build`.
// Only these two entries: a half-written entry of another layer cannot break these tests.

import { build } from 'esbuild';
import { join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(__dirname, '..', '..', '..');
export const ADAPTER_SCRIPT = join(PROJECT_ROOT, 'dist', 'debugAdapter.js');
export const HOST_SCRIPT = join(PROJECT_ROOT, 'dist', 'runtime-host.js');

export async function buildAdapterAndHost(): Promise<void> {
  const entries = [
    { in: 'runtime/host/main.ts', out: HOST_SCRIPT },
    { in: 'extension/debug/standalone.ts', out: ADAPTER_SCRIPT },
  ];
  await Promise.all(
    entries.map((e) =>
      build({
        entryPoints: [join(PROJECT_ROOT, e.in)],
        outfile: e.out,
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        sourcemap: true,
        keepNames: true,
        external: ['vscode'],
        logLevel: 'silent',
      }),
    ),
  );
}
