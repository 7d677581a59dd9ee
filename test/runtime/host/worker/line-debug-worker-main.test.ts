// The line debugger's worker's own entry (runtime/host/worker/line-debug-worker-main.ts, bundled to
// dist/line-debug-worker.js): every runtime host started with a client pipe, a line replay
// host's included, starts its worker on it, so it must hold what the worker runs and nothing
// of the host's main thread (the loop, the crawler and its HTML parser, the samples, the run,
// the recorder): a worker loading the host's whole bundle again was most of a line replay
// host's start. A host (bundle or TypeScript source) finds its worker's script beside it, and
// a host bundled alone (no worker bundle beside it) starts its worker on itself, as before.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { lineDebugWorkerScript } from '../../../../runtime/host/main-thread/line-debug-worker-start';
import { ROOT } from '../host-client';

test("the worker's bundle holds the line debugger and the protocol, none of the host's runtime, crawler, samples or recorder", async () => {
  const built = await build({
    entryPoints: [join(ROOT, 'runtime', 'host', 'worker', 'line-debug-worker-main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    keepNames: true,
    write: false,
    metafile: true,
    outfile: join(ROOT, 'dist', 'line-debug-worker.js'),
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  const inputs = Object.keys(built.metafile.inputs);
  for (const needed of [
    'runtime/host/worker/line-debug-worker.ts',
    'runtime/host/worker/line-debugger.ts',
    'runtime/host/worker/line-replay-host.ts',
    'runtime/host/replay-host/past-line-walk.ts',
    'runtime/host/replay-host/past-hit-search.ts',
    'protocol/rpc.ts',
  ])
    assert.ok(inputs.includes(needed), needed);
  const unneeded = inputs.filter((f) =>
    /^runtime\/(loop|task|socket|selector|streams|queue)\.ts$|^runtime\/(crawler|http|samples|demo-site|record|cli)\/|^runtime\/host\/(run|host|recordings|run-rewind|launch-programs|line-debug-bridge)\.ts$|node_modules\/(htmlparser2|entities|dom-serializer)\//.test(
      f,
    ),
  );
  assert.deepEqual(unneeded, []);
  const host = await build({
    entryPoints: [join(ROOT, 'runtime', 'host', 'main-thread', 'main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    keepNames: true,
    write: false,
    outfile: join(ROOT, 'dist', 'runtime-host.js'),
    logLevel: 'silent',
    absWorkingDir: ROOT,
  });
  const size = (r: typeof built): number => r.outputFiles.find((f) => f.path.endsWith('.js'))!.contents.length;
  assert.ok(size(built) * 4 < size(host), `the worker's bundle is ${size(built)} bytes, the host's ${size(host)}`);
});

test("a host's worker script: its own bundle or entry beside the host's, else the host's script itself", () => {
  assert.equal(
    lineDebugWorkerScript(join(ROOT, 'runtime', 'host', 'main-thread', 'main.ts')),
    join(ROOT, 'runtime', 'host', 'worker', 'line-debug-worker-main.ts'),
  );
  const dir = mkdtempSync(join(tmpdir(), 'coroscope-worker-'));
  try {
    const alone = join(dir, 'runtime-host.js');
    writeFileSync(alone, '');
    assert.equal(lineDebugWorkerScript(alone), alone);
    writeFileSync(join(dir, 'line-debug-worker.js'), '');
    assert.equal(lineDebugWorkerScript(alone), join(dir, 'line-debug-worker.js'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
