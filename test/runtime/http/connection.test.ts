// Tests of one pooled connection (runtime/http/connection.ts) against a fake reader, writer and socket: closed
// when its socket is or once closed; reusable only when open with nothing arrived while idle (no bytes, no EOF,
// no error, the socket not readable); closing aborts the writer once, a TLS socket closed first (not reset).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpConnection } from '../../../runtime/http/connection';
import { EVENT_READ, EVENT_WRITE } from '../../../runtime/selector';
import type { StreamReader, StreamWriter } from '../../../runtime/streams';

/** The state a connection reads, and what closing it did, in order. */
interface Wire {
  buffered: number;
  eof: boolean;
  error: Error | undefined;
  ready: number;
  socketClosed: boolean;
  done: string[];
}

function connection(origin: string): { conn: HttpConnection; wire: Wire } {
  const wire: Wire = { buffered: 0, eof: false, error: undefined, ready: 0, socketClosed: false, done: [] };
  const reader = {
    bufferedBytes: () => wire.buffered,
    _isEof: () => wire.eof,
    exception: () => wire.error,
  };
  const socket = {
    isClosed: () => wire.socketClosed,
    _readyMask: () => wire.ready,
    close: () => {
      wire.done.push('socket closed');
      wire.socketClosed = true;
    },
  };
  const writer = { socket, abort: () => wire.done.push('writer aborted') };
  return {
    conn: new HttpConnection(origin, reader as unknown as StreamReader, writer as unknown as StreamWriter),
    wire,
  };
}

describe('HttpConnection', () => {
  test('an idle connection with nothing arrived is reusable; writable alone is nothing arrived', () => {
    const { conn, wire } = connection('http://127.0.0.1:8080');
    assert.deepStrictEqual([conn.isClosed(), conn.isReusable()], [false, true]);
    wire.ready = EVENT_WRITE;
    assert.equal(conn.isReusable(), true);
  });

  test('anything arrived while idle (bytes, EOF, an error, a readable socket), or a closed socket: not reusable', () => {
    const changes: Array<[string, (w: Wire) => void]> = [
      ['bytes', (w) => (w.buffered = 1)],
      ['EOF', (w) => (w.eof = true)],
      ['an error', (w) => (w.error = new Error('reset'))],
      ['readable', (w) => (w.ready = EVENT_READ | EVENT_WRITE)],
      ['socket closed', (w) => (w.socketClosed = true)],
    ];
    const answers = changes.map(([what, change]) => {
      const { conn, wire } = connection('http://127.0.0.1:8080');
      change(wire);
      return [what, conn.isReusable(), conn.isClosed()];
    });
    assert.deepStrictEqual(answers, [
      ['bytes', false, false],
      ['EOF', false, false],
      ['an error', false, false],
      ['readable', false, false],
      ['socket closed', false, true],
    ]);
  });

  test('close(): the writer aborted once; closed and not reusable after', () => {
    const { conn, wire } = connection('http://127.0.0.1:8080');
    conn.close();
    conn.close();
    assert.deepStrictEqual(wire.done, ['writer aborted']);
    assert.deepStrictEqual([conn.isClosed(), conn.isReusable()], [true, false]);
  });

  test('close() of an https connection: its socket closed first (a TLS socket cannot be reset), then the writer', () => {
    const { conn, wire } = connection('https://example.test');
    conn.close();
    conn.close();
    assert.deepStrictEqual(wire.done, ['socket closed', 'writer aborted']);
    assert.equal(conn.isClosed(), true);
  });

  test('a new connection has carried no request and was never idle', () => {
    const { conn } = connection('http://127.0.0.1:8080');
    assert.deepStrictEqual([conn.origin, conn.requests, conn.idleSince], ['http://127.0.0.1:8080', 0, 0]);
  });
});
