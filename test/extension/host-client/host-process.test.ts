// Tests of the runtime host's child process (extension/host-client/host-process.ts), with fake hosts: small
// scripts forked for real that speak the host protocol's hello and shutdown over the client pipe (fd 4)
// or fail to: a host that answers hello starts; one that speaks another protocol version, or exits first,
// is refused with why; its stdout and stderr lines are told as they come, the last 50
// kept; a crash fails what is pending and is told once with its code and lines; dispose asks for a
// shutdown (an expected exit), and kills a host that ignores it once the grace (mocked clock) has passed.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type HostExit, HostProcess } from '../../../extension/host-client/host-process';
import { PROTOCOL_VERSION } from '../../../protocol/host-protocol';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-host-process-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A fake host: answers hello with `version`, then each request by `onRequest` (a JS function body given
 * `m`, the request, and `reply(result)`); writes `before` to stdout first.
 */
function fakeHost(name: string, options: { version?: number; onRequest?: string; before?: string } = {}): string {
  const path = join(dir, `${name}.js`);
  writeFileSync(
    path,
    `const net = require('node:net');
process.stdout.write(${JSON.stringify(options.before ?? '')});
const pipe = new net.Socket({ fd: 4, readable: true, writable: true });
let buffered = '';
const reply = (id, result) => pipe.write(JSON.stringify({ kind: 'response', id, ok: true, result }) + '\\n');
pipe.on('data', (chunk) => {
  buffered += chunk.toString();
  let nl;
  while ((nl = buffered.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buffered.slice(0, nl));
    buffered = buffered.slice(nl + 1);
    if (m.method === 'hello') { reply(m.id, { protocolVersion: ${options.version ?? PROTOCOL_VERSION}, hostVersion: 'fake', pid: process.pid }); continue; }
    ((m, reply) => { ${options.onRequest ?? ''} })(m, (result) => reply(m.id, result));
  }
});
process.on('disconnect', () => process.exit(0));
`,
  );
  return path;
}

function exited(host: HostProcess): Promise<HostExit> {
  return new Promise((resolve) => host.onExit(resolve));
}

describe('starting', () => {
  test('a host that answers hello starts; its output lines told as they come', async () => {
    const logged: string[] = [];
    const host = await HostProcess.start({
      hostScript: fakeHost('ok', {
        before: 'one\r\ntwo\n\n',
        onRequest: "if (m.method === 'shutdown') { reply({}); setImmediate(() => process.exit(0)); }",
      }),
      clientName: 'test',
      onLog: (line, stream) => logged.push(`${stream}: ${line}`),
    });
    assert.equal(host.isAlive(), true);
    await host.dispose();
    assert.deepEqual(host.exit(), { code: 0, signal: null, lastLines: ['one', 'two'], expected: true });
    assert.deepEqual(logged, ['stdout: one', 'stdout: two']);
    // Told at once once it has exited.
    assert.deepEqual(await exited(host), host.exit());
  });

  test('another protocol version, or an exit before hello: refused with why', async () => {
    const dies = join(dir, 'dies.js');
    writeFileSync(dies, "process.stderr.write('Error: cannot find module\\n');\nprocess.exit(7);\n");
    const refusals: string[] = [];
    for (const hostScript of [fakeHost('old', { version: PROTOCOL_VERSION + 1 }), dies]) {
      try {
        await HostProcess.start({ hostScript, clientName: 'test' });
        refusals.push('started');
      } catch (e) {
        refusals.push((e as Error).message);
      }
    }
    assert.equal(
      refusals[0],
      `the runtime host did not start: the runtime host speaks protocol ${PROTOCOL_VERSION + 1}, this client ${PROTOCOL_VERSION}`,
    );
    // Its last lines follow when they were read before its exit (a race with the exit event: not asserted).
    const died =
      'the runtime host did not start: connection closed while waiting for hello: the runtime host exited (code 7)';
    assert.equal(refusals[1]?.slice(0, died.length), died);
  });
});

describe('a running host', () => {
  test('a crash fails what is pending and is told once, with its code and its last 50 lines', async () => {
    const host = await HostProcess.start({
      // Its lines written at its start, long read when it crashes (lines written just before an exit may be
      // read after the exit event).
      hostScript: fakeHost('crash', {
        before: Array.from({ length: 60 }, (_, i) => `line ${i + 1}\n`).join(''),
        onRequest: "if (m.method === 'snapshot') process.exit(3);",
      }),
      clientName: 'test',
    });
    const told: HostExit[] = [];
    host.onExit((e) => told.push(e));
    const pending = host.endpoint.request('snapshot', {}).then(
      () => 'answered',
      () => 'failed',
    );
    const exit = await exited(host);
    assert.equal(await pending, 'failed');
    assert.deepEqual(
      {
        code: exit.code,
        signal: exit.signal,
        expected: exit.expected,
        first: exit.lastLines[0],
        n: exit.lastLines.length,
      },
      { code: 3, signal: null, expected: false, first: 'line 11', n: 50 },
    );
    assert.equal(told.length, 1);
    assert.equal(host.isAlive(), false);
    await assert.rejects(host.endpoint.request('snapshot', {}));
  });

  test('dispose kills a host that ignores the shutdown once the grace has passed', async (t) => {
    const host = await HostProcess.start({ hostScript: fakeHost('deaf'), clientName: 'test' });
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const disposed = host.dispose(2000);
    t.mock.timers.tick(1999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(host.isAlive(), true);
    t.mock.timers.tick(1);
    await disposed;
    assert.deepEqual(
      { signal: host.exit()?.signal, expected: host.exit()?.expected },
      { signal: 'SIGKILL', expected: true },
    );
  });
});
