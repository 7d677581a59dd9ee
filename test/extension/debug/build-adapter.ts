// The bundles the adapter tests run, dist/debugAdapter.js and dist/runtime-host.js with its line
// debugger's worker (dist/line-debug-worker.js) and the TypeScript transpiler a program without one
// of its own gets (dist/typescript-transpiler.js): built by `node esbuild.mjs` when missing or older
// than the sources (test/dist-bundles.ts), so the tests always drive the current sources, even when
// the test runner is used without `npm run build`.

import { join } from 'node:path';
import { ensureBundles, PROJECT_ROOT } from '../../dist-bundles';

export { PROJECT_ROOT };
export const ADAPTER_SCRIPT = join(PROJECT_ROOT, 'dist', 'debugAdapter.js');
export const HOST_SCRIPT = join(PROJECT_ROOT, 'dist', 'runtime-host.js');

export async function buildAdapterAndHost(): Promise<void> {
  ensureBundles();
}
