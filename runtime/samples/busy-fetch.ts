// The busy non-blocking fetch of the article: a non-blocking socket and no selector. Every
// connect, send and recv that is not ready throws BlockingIOError, and the code just tries
// again: it cannot know when the socket will be ready, so it asks, and asks, and asks.
//
// In Node the bytes of a socket arrive only between two macrotasks of Node's own loop, so
// between two tries the fetch gives Node exactly one turn (setImmediate): the least it can
// do for anything to change. Each failed try is counted as wasted: that is the CPU a
// selector would have saved. One fetch at a time, as in the article: while one page is
// being polled for, no other fetch can make progress in this code.

import { BlockingIOError } from '../errors';
import { inspect, inspectResource } from '../inspection';
import { announceProgramLoop, type InspectableProgramLoop } from '../program-loops';
import { Socket } from '../socket';
import { failureOf, requestFor, resultOf, type Origin, type PageResult } from './page-fetch';

const RECV_BYTES = 4096;

/** Lets Node's loop run one turn, so the socket can receive what has arrived. */
function oneNodeTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

export interface BusyResult extends PageResult {
  /** Tries that found the socket not ready. */
  wastedTries: number;
}

export async function busyFetch(origin: Origin, path: string): Promise<BusyResult> {
  let wastedTries = 0;
  let asking: 'send' | 'recv' = 'send';
  const sock = new Socket();
  sock.setBlocking(false);
  // What the inspector shows of this loop: its one socket, asked again and again, no callback.
  const view: InspectableProgramLoop = {
    [inspect]: () => ({
      kind: 'busy',
      title: `a busy retry loop on one non-blocking socket (GET ${path})`,
      running: () => `trying ${asking}() again`,
      ready: () => [],
      sockets: () => [{ fd: sock.fileno(), events: asking === 'send' ? 'write' : 'read', callback: 'none: no selector, the loop tries again', socket: inspectResource(sock)?.description() ?? `fd ${sock.fileno()}` }],
      timers: () => [],
      workers: () => [],
      notes: () => [`${wastedTries} tries found the socket not ready`],
    }),
  };
  const withdraw = announceProgramLoop(view);
  try {
    try {
      sock.connect([origin.host, origin.port]);
    } catch (error) {
      if (!(error instanceof BlockingIOError)) throw error;
    }
    // send() throws BlockingIOError until the connection is made: keep trying.
    let unsent = requestFor(origin, path);
    while (unsent.length > 0) {
      try {
        unsent = unsent.subarray(sock.send(unsent));
      } catch (error) {
        if (!(error instanceof BlockingIOError)) throw error;
        wastedTries++;
        await oneNodeTurn();
      }
    }
    asking = 'recv';
    const chunks: Buffer[] = [];
    for (;;) {
      let chunk: Buffer;
      try {
        chunk = sock.recv(RECV_BYTES);
      } catch (error) {
        if (!(error instanceof BlockingIOError)) throw error;
        wastedTries++;
        await oneNodeTurn();
        continue;
      }
      if (chunk.length === 0) break;
      chunks.push(chunk);
    }
    return { ...resultOf(path, Buffer.concat(chunks)), wastedTries };
  } catch (error) {
    return { ...failureOf(path, error), wastedTries };
  } finally {
    withdraw();
    sock.close();
  }
}

/** Fetches the pages one after the other, busily. */
export async function busyFetchAll(origin: Origin, paths: readonly string[]): Promise<BusyResult[]> {
  const results: BusyResult[] = [];
  for (const path of paths) results.push(await busyFetch(origin, path));
  return results;
}
