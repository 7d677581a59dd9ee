// A fetch that truly blocks: the calling thread stops until the page is in, as a blocking
// socket's connect() and recv() stop a Python thread.
//
// JavaScript has no blocking socket calls, so the socket I/O happens on a helper thread and
// the caller waits for it with Atomics.wait on a SharedArrayBuffer, the one call that really
// suspends a JavaScript thread. While it waits, nothing else runs on the calling thread: no
// timer, no callback, no other fetch. The page comes back with receiveMessageOnPort, which
// takes a message synchronously.
//
// Invariants: one fetch at a time per BlockingFetcher (it is sequential by nature); the
// server must not run on the calling thread (it could not answer: see remote-site.ts); a
// fetch that takes longer than `timeoutMs` throws instead of waiting forever, and leaves the
// fetcher unusable (a late answer could otherwise be taken for the next page's). close()
// terminates the helper thread.

import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads';
import { inspect } from '../inspection';
import { announceProgramLoop, type InspectableProgramLoop, type ProgramLoopInspection } from '../program-loops';
import { startEvalWorker } from './eval-worker';
import { BLOCKING_IO_THREAD_SOURCE } from './worker-sources';

export interface BlockingReply {
  status: number;
  /** Bytes of the whole response, head included. */
  bytes: number;
  /** The response as received. */
  raw: Buffer;
}

type IoReply = { status: number; bytes: number; raw?: Uint8Array } | { error: string };

export class BlockingFetcher implements InspectableProgramLoop {
  private readonly worker: Worker;
  /** The page fetched so far, or the last one (null: none yet). */
  private lastPath: string | null = null;
  private readonly withdraw: () => void;
  private readonly replies: MessagePort;
  private readonly flag: Int32Array;
  private broken = false;
  readonly timeoutMs: number;

  private constructor(worker: Worker, replies: MessagePort, flag: Int32Array, timeoutMs: number) {
    this.worker = worker;
    this.replies = replies;
    this.flag = flag;
    this.timeoutMs = timeoutMs;
    this.withdraw = announceProgramLoop(this);
  }

  /** The two threads as the inspector shows them (runtime/program-loops.ts). */
  [inspect](): ProgramLoopInspection {
    const last = this.lastPath;
    return {
      kind: 'threads',
      title: 'a blocking fetch: this thread waits in Atomics.wait while a helper thread does the socket work',
      running: () => null,
      ready: () => [],
      sockets: () => [],
      timers: () => [],
      workers: () => [
        { kind: 'thread', name: 'this thread', state: `runs the program; blocked in Atomics.wait during each fetch()${last === null ? '' : ` (last: ${last})`}` },
        { kind: 'thread', name: `thread ${this.worker.threadId} (socket helper)`, state: this.broken ? 'abandoned after a timeout' : 'idle between fetches (it connects, sends and reads while this thread blocks)' },
      ],
      notes: () => [],
    };
  }

  /** Starts the helper thread (asynchronously: it must be up before anyone blocks on it). */
  static async start(timeoutMs = 30_000): Promise<BlockingFetcher> {
    const flag = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const { worker } = await startEvalWorker(BLOCKING_IO_THREAD_SOURCE, { flag, replies: port2 }, [port2]);
    return new BlockingFetcher(worker, port1, new Int32Array(flag), timeoutMs);
  }

  /** GET `path` from host:port; returns when the whole response is in. Blocks this thread. */
  fetch(host: string, port: number, path: string): BlockingReply {
    if (this.broken) throw new Error('this blocking fetcher timed out earlier: start a new one');
    this.lastPath = path;
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage({ host, port, path });
    const waited = Atomics.wait(this.flag, 0, 0, this.timeoutMs);
    if (waited === 'timed-out') {
      this.broken = true;
      throw new Error(`blocking fetch of ${path}: no answer within ${this.timeoutMs} ms`);
    }
    const message = receiveMessageOnPort(this.replies);
    if (message === undefined) throw new Error(`blocking fetch of ${path}: woken without an answer`);
    const reply = message.message as IoReply;
    if ('error' in reply) throw new Error(`blocking fetch of ${path}: ${reply.error}`);
    const raw = reply.raw === undefined ? Buffer.alloc(0) : Buffer.from(reply.raw.buffer, reply.raw.byteOffset, reply.raw.byteLength);
    return { status: reply.status, bytes: reply.bytes, raw };
  }

  async close(): Promise<void> {
    this.withdraw();
    this.replies.close();
    await this.worker.terminate();
  }
}
