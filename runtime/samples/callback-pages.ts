// Fetching a list of pages with callbacks on stage 1's selector loop (runCallbackLoop), all at
// once: one PageFetcher per page, whose state lives in its fields between callbacks.
//
// The stage's own Fetcher also parses each page and follows its links; this one only fetches,
// so that the comparison measures the waiting and nothing else. The chain is the chapter's:
// start() connects and registers `connected` for EVENT_WRITE; `connected` sends the request
// and registers `readable` for EVENT_READ; `readable` takes 4 KiB per call until the server
// closes. Invariants: every fetcher answers exactly once (a failure is an answer) and closes its
// socket; the loop stops when the last one has answered.

import { CallbackCrawl, runCallbackLoop } from '../crawler/callback-fetcher';
import { BlockingIOError } from '../errors';
import { EVENT_READ, EVENT_WRITE, type DefaultSelector, type SelectorKey } from '../selector';
import { Socket } from '../socket';
import { failureOf, requestFor, resultOf, type Origin, type PageResult } from './page-fetch';

const RECV_BYTES = 4096;

export class PageFetcher {
  readonly path: string;
  private readonly origin: Origin;
  private readonly selector: DefaultSelector;
  private readonly done: (result: PageResult) => void;
  private sock: Socket | null = null;
  private unsent: Buffer;
  private readonly chunks: Buffer[] = [];
  private finished = false;

  constructor(origin: Origin, path: string, selector: DefaultSelector, done: (result: PageResult) => void) {
    this.origin = origin;
    this.path = path;
    this.selector = selector;
    this.done = done;
    this.unsent = requestFor(origin, path);
    this.connected = this.connected.bind(this);
    this.readable = this.readable.bind(this);
  }

  /** Starts connecting and returns at once. */
  start(): void {
    try {
      const sock = new Socket();
      this.sock = sock;
      sock.setBlocking(false);
      try {
        sock.connect([this.origin.host, this.origin.port]);
      } catch (error) {
        if (!(error instanceof BlockingIOError)) throw error;
      }
      this.selector.register(sock, EVENT_WRITE, this.connected);
    } catch (error) {
      this.finish(failureOf(this.path, error));
    }
  }

  /** Writable: connected (or failed). Sends what fits; reads once it is all sent. */
  connected(key: SelectorKey): void {
    const sock = this.sock!;
    try {
      const failure = sock.error();
      if (failure !== null) throw failure;
      try {
        this.unsent = this.unsent.subarray(sock.send(this.unsent));
      } catch (error) {
        if (!(error instanceof BlockingIOError)) throw error;
      }
      if (this.unsent.length === 0) this.selector.modify(key.fd, EVENT_READ, this.readable);
    } catch (error) {
      this.finish(failureOf(this.path, error));
    }
  }

  /** Readable: a chunk, or the end of the response. */
  readable(): void {
    let chunk: Buffer;
    try {
      chunk = this.sock!.recv(RECV_BYTES);
    } catch (error) {
      if (error instanceof BlockingIOError) return;
      this.finish(failureOf(this.path, error));
      return;
    }
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      return;
    }
    this.finish(resultOf(this.path, Buffer.concat(this.chunks)));
  }

  private finish(result: PageResult): void {
    if (this.finished) return;
    this.finished = true;
    const sock = this.sock;
    if (sock !== null) {
      if (this.selector.getKey(sock) !== undefined) this.selector.unregister(sock);
      sock.close();
    }
    this.done(result);
  }
}

/** Fetches every path at once with callbacks; resolves when the loop has run out of fetches. */
export async function fetchPagesWithCallbacks(origin: Origin, paths: readonly string[]): Promise<PageResult[]> {
  const crawl = new CallbackCrawl([`http://${origin.host}:${origin.port}/`]);
  const results: PageResult[] = new Array<PageResult>(paths.length);
  let left = paths.length;
  if (left === 0) crawl.stopped = true;
  paths.forEach((path, i) => {
    new PageFetcher(origin, path, crawl.selector, (result) => {
      results[i] = result;
      if (--left === 0) crawl.stopped = true;
    }).start();
  });
  try {
    await runCallbackLoop(crawl);
  } finally {
    crawl.close();
  }
  return results;
}
