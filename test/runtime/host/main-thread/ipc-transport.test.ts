// Tests of the runtime host's IPC transport (runtime/host/main-thread/ipc-transport.ts). Over a real
// child_process IPC channel (a forked child running the transport): messages come in and go out in order,
// and the parent's disconnect closes the transport once with its reason, a send after it being a no-op.
// With a process object passed in: no IPC channel is refused at construction, and a failed send closes
// the transport once, whatever follows.

import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { IpcTransport } from '../../../../runtime/host/main-thread/ipc-transport';

const dir = mkdtempSync(join(tmpdir(), 'coroscope-ipc-transport-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The child: echoes each message through the transport; once closed, says how on stdout and exits. */
const CHILD = join(dir, 'child.ts');
writeFileSync(
  CHILD,
  `import { IpcTransport } from ${JSON.stringify(join(__dirname, '../../../../runtime/host/main-thread/ipc-transport'))};
const t = new IpcTransport();
t.onMessage((m) => t.send({ echo: m, closed: t.isClosed() }));
t.onClose((reason) => {
  t.send({ after: 'close' });
  process.stdout.write(JSON.stringify({ reason, closed: t.isClosed() }) + '\\n');
  process.exit(0);
});
`,
);

describe('over a real IPC channel', () => {
  test('messages echoed in order; the parent leaving closes the transport with its reason', async () => {
    const child = fork(CHILD, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let stdout = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    const echoes: unknown[] = [];
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.on('message', (m) => {
        echoes.push(m);
        if (echoes.length === 3) resolve();
      });
      for (const n of [1, 2, 3]) child.send({ n });
    });
    child.disconnect();
    assert.equal(await exited, 0);
    assert.deepEqual(echoes, [
      { echo: { n: 1 }, closed: false },
      { echo: { n: 2 }, closed: false },
      { echo: { n: 3 }, closed: false },
    ]);
    assert.deepEqual(JSON.parse(stdout), { reason: 'the client disconnected', closed: true });
  });
});

/** A process as the transport uses it, whose sends fail with `error` (null: they succeed). */
function processSending(error: Error | null): { proc: NodeJS.Process; sent: unknown[] } {
  const sent: unknown[] = [];
  const proc = Object.assign(new EventEmitter(), {
    connected: true,
    send: (message: unknown, _handle: unknown, _options: unknown, done: (err: Error | null) => void) => {
      sent.push(message);
      done(error);
      return true;
    },
  });
  return { proc: proc as unknown as NodeJS.Process, sent };
}

describe('with a process passed in', () => {
  test('no IPC channel: refused at construction', () => {
    const proc = Object.assign(new EventEmitter(), { send: undefined }) as unknown as NodeJS.Process;
    assert.throws(() => new IpcTransport(proc), {
      message: 'the runtime host must be started with an IPC channel (child_process.fork)',
    });
  });

  test('a failed send closes the transport once; nothing is sent after', () => {
    const { proc, sent } = processSending(new Error('EPIPE'));
    const t = new IpcTransport(proc);
    const closes: string[] = [];
    t.onClose((reason) => closes.push(reason));
    t.send({ a: 1 });
    t.send({ a: 2 });
    proc.emit('disconnect');
    assert.deepEqual(
      { sent, closes, closed: t.isClosed() },
      { sent: [{ a: 1 }], closes: ['send failed: EPIPE'], closed: true },
    );
  });

  test('a channel not connected: nothing sent, still open', () => {
    const { proc, sent } = processSending(null);
    (proc as { connected: boolean }).connected = false;
    const t = new IpcTransport(proc);
    t.send({ a: 1 });
    assert.deepEqual({ sent, closed: t.isClosed() }, { sent: [], closed: false });
  });
});
