// Tests of protocol/stream-transport.ts over a real in-process Duplex pair (node:stream's
// duplexPair): one JSON message a line in both directions, a message delivered only once its
// line is complete however the bytes are chunked, a bad line reported and skipped, blank lines
// ignored, the close reason of a closed or failed pipe given once, and sends after close dropped.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { duplexPair, type Duplex } from 'node:stream';
import { StreamTransport, type ByteStream } from '../../protocol/stream-transport';

/** Resolves once the pair has carried what was written (its sides hand data over on a later tick). */
function flushed(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A transport on one side of a fresh pair, the raw other side, and what the transport received. */
function transportOnPair(): { transport: StreamTransport; peer: Duplex; own: Duplex; received: unknown[] } {
  const [own, peer] = duplexPair();
  const transport = new StreamTransport(own);
  const received: unknown[] = [];
  transport.onMessage((m) => received.push(m));
  return { transport, peer, own, received };
}

/** Everything written to `peer`'s other side, as text, from now on. */
function textArriving(peer: Duplex): { text(): string } {
  let text = '';
  peer.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { text: () => text };
}

/** A ByteStream over `inner` that records what is written to it. */
class RecordingStream implements ByteStream {
  readonly writes: string[] = [];
  constructor(private readonly inner: Duplex) {}
  write(chunk: string): unknown {
    this.writes.push(chunk);
    return this.inner.write(chunk);
  }
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(
    event: 'data' | 'close' | 'error',
    listener: ((chunk: Buffer) => void) | (() => void) | ((error: Error) => void),
  ): unknown {
    return this.inner.on(event, listener);
  }
}

describe('StreamTransport', () => {
  test('two transports on a pair exchange messages in order, each receiver in registration order', async (t) => {
    const [left, right] = duplexPair();
    t.after(() => {
      left.destroy();
      right.destroy();
    });
    const a = new StreamTransport(left);
    const b = new StreamTransport(right);
    const log: string[] = [];
    b.onMessage((m) => log.push(`first ${JSON.stringify(m)}`));
    b.onMessage((m) => log.push(`second ${JSON.stringify(m)}`));
    const backToA: unknown[] = [];
    a.onMessage((m) => backToA.push(m));
    a.send({ kind: 'event', event: 'x', body: [1, 'two'] });
    a.send('line\nbreak');
    b.send(null);
    await flushed();
    assert.deepEqual(log, [
      'first {"kind":"event","event":"x","body":[1,"two"]}',
      'second {"kind":"event","event":"x","body":[1,"two"]}',
      'first "line\\nbreak"',
      'second "line\\nbreak"',
    ]);
    assert.deepEqual(backToA, [null]);
  });

  test('send writes one JSON line; sendRaw writes the given JSON as one line', async (t) => {
    const { transport, peer, own } = transportOnPair();
    t.after(() => {
      own.destroy();
      peer.destroy();
    });
    const arriving = textArriving(peer);
    transport.send({ a: 1, s: 'é\n' });
    transport.sendRaw('{"pre":"serialised"}');
    await flushed();
    assert.equal(arriving.text(), '{"a":1,"s":"é\\n"}\n{"pre":"serialised"}\n');
  });

  test('a message is delivered only once its line is complete, however the bytes are chunked', async (t) => {
    const { peer, own, received } = transportOnPair();
    t.after(() => {
      own.destroy();
      peer.destroy();
    });
    const afterEachChunk: unknown[][] = [];
    for (const chunk of ['{"n":', '1}', '\n{"n":2}\n{"n"', ':3}\n']) {
      peer.write(chunk);
      await flushed();
      afterEachChunk.push([...received]);
    }
    assert.deepEqual(afterEachChunk, [[], [], [{ n: 1 }, { n: 2 }], [{ n: 1 }, { n: 2 }, { n: 3 }]]);
  });

  test('a character whose bytes come in two chunks arrives whole (a crawled title, a program printing é or 🙂)', async (t) => {
    const { peer, own, received } = transportOnPair();
    t.after(() => {
      own.destroy();
      peer.destroy();
    });
    const bytes = Buffer.from('{"text":"café 🙂"}\n', 'utf8');
    // Cut inside é (2 bytes), then inside the emoji (4 bytes).
    const e = bytes.indexOf(0xc3);
    const emoji = bytes.indexOf(0xf0);
    for (const chunk of [bytes.subarray(0, e + 1), bytes.subarray(e + 1, emoji + 2), bytes.subarray(emoji + 2)]) {
      peer.write(chunk);
      await flushed();
    }
    assert.deepEqual(received, [{ text: 'café 🙂' }]);
  });

  test('blank lines are skipped; a line that is not JSON is reported and the next ones still arrive', async (t) => {
    const { transport, peer, own, received } = transportOnPair();
    t.after(() => {
      own.destroy();
      peer.destroy();
    });
    const badLines: string[] = [];
    transport.onBadLine = (line) => badLines.push(line);
    peer.write('\n   \n{"ok":1}\r\n{not json}\n{"ok":2}\n');
    await flushed();
    assert.deepEqual(received, [{ ok: 1 }, { ok: 2 }]);
    assert.deepEqual(badLines, ['{not json}']);
  });

  test('a closed pipe closes the transport once, with its reason', async () => {
    const { transport, own, peer } = transportOnPair();
    const reasons: string[] = [];
    transport.onClose((r) => reasons.push(r));
    assert.equal(transport.isClosed(), false);
    own.destroy();
    await flushed();
    peer.destroy();
    assert.equal(transport.isClosed(), true);
    assert.deepEqual(reasons, ['the pipe closed']);
  });

  test('a failed pipe closes the transport once, with the failure (its later close adds nothing)', async () => {
    const { transport, own, peer } = transportOnPair();
    const reasons: string[] = [];
    transport.onClose((r) => reasons.push(`first: ${r}`));
    transport.onClose((r) => reasons.push(`second: ${r}`));
    own.destroy(new Error('EPIPE from the host'));
    await flushed();
    peer.destroy();
    assert.deepEqual(reasons, [
      'first: the pipe failed: EPIPE from the host',
      'second: the pipe failed: EPIPE from the host',
    ]);
  });

  test('sends after close are dropped, not written to the closed stream', async () => {
    const [own, peer] = duplexPair();
    const stream = new RecordingStream(own);
    const transport = new StreamTransport(stream);
    transport.send({ before: true });
    own.destroy();
    await flushed();
    peer.destroy();
    transport.send({ after: true });
    transport.sendRaw('{"raw":true}');
    assert.deepEqual(stream.writes, ['{"before":true}\n']);
  });
});
