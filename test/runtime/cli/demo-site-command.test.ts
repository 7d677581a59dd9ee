// Tests of `coroscope demo-site` (runtime/cli/demo-site-command.ts), in process on loopback: it serves the
// demo site and says where (one stdout line), answers over a real socket, and stops at SIGINT (an emitted
// signal event, not a real signal) with exit code 0, closing its port; a port in use is refused with exit
// code 1 and why, nothing served.

import assert from 'node:assert/strict';
import { get } from 'node:http';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { runDemoSiteCommand } from '../../../runtime/cli/demo-site-command';

/** Runs `run` with what it writes to `stream` that starts with `prefix` captured (the rest passed through). */
async function capturing<T>(
  stream: NodeJS.WriteStream,
  prefix: string,
  run: (captured: string[]) => Promise<T>,
): Promise<{ result: T; captured: string[] }> {
  const captured: string[] = [];
  const write = stream.write;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && chunk.startsWith(prefix)) {
      captured.push(chunk);
      return true;
    }
    return (write as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
  }) as typeof stream.write;
  try {
    return { result: await run(captured), captured };
  } finally {
    stream.write = write;
  }
}

function status(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
  });
}

test('serves the demo site, says where, and stops at SIGINT with 0, its port closed', async () => {
  let url = '';
  const { result, captured } = await capturing(process.stdout, 'Demo site', async (lines) => {
    const running = runDemoSiteCommand({ kind: 'demo-site', port: 0, pages: 3, latencyMs: 0, faults: false });
    while (lines.length === 0) await new Promise((resolve) => setImmediate(resolve));
    url = /at (\S+) /.exec(lines[0] ?? '')?.[1] ?? '';
    const served = await status(`${url}page/1/`);
    process.emit('SIGINT');
    return { served, code: await running };
  });
  assert.deepEqual(captured, [`Demo site with 3 pages at ${url} (Ctrl-C to stop)\n`]);
  assert.deepEqual(result, { served: 200, code: 0 });
  assert.equal(await status(url), 'ECONNREFUSED');
});

test('a port in use: refused with 1 and why', async () => {
  const taken: Server = createServer();
  await new Promise<void>((resolve) => taken.listen({ port: 0, host: '127.0.0.1' }, resolve));
  const address = taken.address();
  assert.ok(address !== null && typeof address === 'object');
  try {
    const { result, captured } = await capturing(process.stderr, 'coroscope demo-site', () =>
      runDemoSiteCommand({ kind: 'demo-site', port: address.port, pages: 3, latencyMs: 0, faults: false }),
    );
    assert.deepEqual(
      { result, captured },
      { result: 1, captured: [`coroscope demo-site: cannot listen on port ${address.port}: the port is in use\n`] },
    );
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});
