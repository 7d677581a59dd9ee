// Stage 1 of the crawler: one Fetcher per URL, driven by callbacks from a selector loop.
//
// This is the "spaghetti" stage the chapter starts from. A fetch is a chain of callbacks that
// the selector calls when the socket is ready: `fetch()` starts connecting and registers
// `connected` for EVENT_WRITE; `connected` sends the request and registers `readResponse`
// for EVENT_READ; `readResponse` takes 4 KiB per call until the server closes, then parses
// the response and starts a new Fetcher for every new link. Between callbacks the Fetcher
// keeps its state by hand, in its own fields (socket, chunks, unsent bytes): there is no
// stack frame to keep it in.
//
// That is also why a failure in `readResponse` has a "ripped" stack: the loop called the
// callback, so the trace reads loop → readResponse → parse and says nothing of the page that
// found this URL or of the `fetch()` that began it. Such errors are recorded with the URL
// (the statistic's `exception`) and kept as thrown, stack included, in the result's `errors`,
// so the inspector can put this trace next to the coroutine traceback of the same failure.
//
// Invariants:
// - Every callback is total: whatever goes wrong (connection refused, a malformed or oversized
//   response, UnknownCharsetError, a timeout) becomes the URL's recorded failure; nothing
//   escapes into the loop. A Fetcher records exactly once and then closes its socket.
// - http and https: https URLs use the runtime Socket's TLS mode (`tls` option to pass a CA).
// - The loop never blocks: it waits in `select()` at most until the next fetch deadline.

import { BlockingIOError, TimeoutError } from '../errors';
import { EVENT_READ, EVENT_WRITE, type SelectorKey } from '../selector';
import { Socket } from '../socket';
import { parseHttp10Response, type Http10Response } from './http10-response';
import {
  ResponseTooLargeError,
  TeachingCrawl,
  type Deadline,
  type FetchTarget,
  type TeachingCrawlOptions,
  type TeachingCrawlResult,
} from './teaching-crawl';

export type { TeachingCrawlOptions as CallbackCrawlOptions, TeachingCrawlResult as CallbackCrawlResult } from './teaching-crawl';

/** What the selector keeps as a registration's data in this stage. */
export type Callback = (key: SelectorKey, mask: number) => void;

/** How many bytes `readResponse` asks for per call, as in the chapter. */
export const CHUNK_SIZE = 4096;

/** The state of a callback crawl: its selector, seen URLs, statistics and `stopped` flag. */
export class CallbackCrawl extends TeachingCrawl {
  protected override readonly loopTitle = "the callback crawl's select loop";
}

export class Fetcher {
  readonly url: string;
  readonly crawl: CallbackCrawl;
  /** Redirects this fetch may still follow. */
  readonly maxRedirect: number;
  sock: Socket | null = null;
  /** Bytes of the request the socket has not accepted yet. */
  private unsent: Buffer = Buffer.alloc(0);
  /** The response so far (the chapter's `self.response`), kept as chunks. */
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private deadline: Deadline | null = null;
  private finished = false;

  constructor(url: string, crawl: CallbackCrawl, maxRedirect: number = crawl.maxRedirect) {
    this.url = url;
    this.crawl = crawl;
    this.maxRedirect = maxRedirect;
    // Bound once, so a callback's frame in a trace is the method itself.
    this.connected = this.connected.bind(this);
    this.readResponse = this.readResponse.bind(this);
  }

  /** Starts connecting and returns at once; `connected` runs when the socket is writable. */
  fetch(): void {
    this.deadline = this.crawl.armDeadline(
      () => this.fail(new TimeoutError(`no complete response from ${this.url} within ${this.crawl.timeout} s`)),
      `the fetch of ${this.url}`,
    );
    try {
      const endpoint = this.crawl.endpointOf(this.url);
      this.unsent = endpoint.request;
      const sock = new Socket(this.crawl.socketOptionsFor(endpoint));
      this.sock = sock;
      sock.setBlocking(false);
      try {
        sock.connect([endpoint.host, endpoint.port]);
      } catch (error) {
        // In progress: the expected answer of a non-blocking connect.
        if (!(error instanceof BlockingIOError)) throw error;
      }
      this.crawl.selector.register(sock, EVENT_WRITE, this.connected);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The socket is writable: connected, or failed (then send throws the reason). */
  connected(key: SelectorKey, mask: number): void {
    const sock = this.sock!;
    this.crawl.selector.unregister(key.fd);
    try {
      const failure = sock.error();
      if (failure !== null) throw failure;
      let sent = 0;
      try {
        sent = sock.send(this.unsent);
      } catch (error) {
        if (!(error instanceof BlockingIOError)) throw error;
      }
      this.unsent = this.unsent.subarray(sent);
      if (this.unsent.length > 0) {
        // The send buffer was full: come back here when it has room again.
        this.crawl.selector.register(key.fd, EVENT_WRITE, this.connected);
        return;
      }
      this.crawl.selector.register(key.fd, EVENT_READ, this.readResponse);
    } catch (error) {
      this.fail(error);
    }
  }

  /** The socket is readable: take a chunk, or at EOF parse the response and follow it. */
  readResponse(key: SelectorKey, mask: number): void {
    const sock = this.sock!;
    let chunk: Buffer;
    try {
      chunk = sock.recv(CHUNK_SIZE);
    } catch (error) {
      if (error instanceof BlockingIOError) return; // nothing after all: wait for the next event
      this.fail(error);
      return;
    }
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.received += chunk.length;
      if (this.received > this.crawl.maxResponseBytes) {
        this.fail(new ResponseTooLargeError(`response from ${this.url} larger than ${this.crawl.maxResponseBytes} bytes`));
      }
      return;
    }

    // EOF: the server closed, the response is complete. Done with the socket.
    this.crawl.selector.unregister(key.fd);
    const raw = Buffer.concat(this.chunks, this.received);
    this.release();
    let response: Http10Response | null = null;
    let targets: FetchTarget[] = [];
    try {
      response = parseHttp10Response(raw);
      targets = this.crawl.recordResponse(this.url, this.maxRedirect, response);
    } catch (error) {
      // Caught here, one frame above the parse: its stack still reads loop → readResponse → parse.
      targets = this.crawl.recordFailure(this.url, error, response);
    }
    // A new Fetcher for every new URL; no cap on how many run at once.
    for (const target of targets) new Fetcher(target.url, this.crawl, target.maxRedirect).fetch();
    this.crawl.fetchFinished();
  }

  /** Records `error` as this URL's outcome and ends the fetch (once). */
  private fail(error: unknown): void {
    if (this.finished) return;
    const sock = this.sock;
    if (sock !== null && this.crawl.selector.getKey(sock) !== undefined) this.crawl.selector.unregister(sock);
    this.release();
    for (const target of this.crawl.recordFailure(this.url, error, null)) new Fetcher(target.url, this.crawl, target.maxRedirect).fetch();
    this.crawl.fetchFinished();
  }

  /** Marks the fetch finished: cancels its deadline, closes its socket. */
  private release(): void {
    this.finished = true;
    this.deadline?.cancel();
    this.sock?.close();
    this.chunks.length = 0;
  }
}

/**
 * The event loop of this stage: wait for ready sockets, call their callbacks, fire expired
 * deadlines; until no fetch is in flight.
 */
export async function runCallbackLoop(crawl: CallbackCrawl): Promise<void> {
  const selector = crawl.selector;
  while (!crawl.stopped) {
    const events = await selector.select(crawl.selectTimeout());
    for (const [i, [key, mask]] of events.entries()) {
      // A callback earlier in this batch may have ended this registration.
      if (selector.getKey(key.fd) !== key) continue;
      crawl.nowRunning(events, i); // for the inspector: this callback runs, the rest wait
      const callback = key.data as Callback;
      callback(key, mask);
    }
    crawl.nowRunning([], 0);
    crawl.expireDeadlines();
    if (events.length === 0 && crawl.isWedged()) throw new Error('callback crawl: fetches in flight but nothing to wait for');
  }
}

/**
 * Crawls from `roots` with stage 1's callbacks. Resolves once every admitted URL is recorded.
 * Deliberately not an async function: the loop is the bottom of every callback's stack, as
 * in the chapter, so a ripped trace shows nothing above it.
 */
export function crawlWithCallbacks(roots: string[], options: TeachingCrawlOptions = {}): Promise<TeachingCrawlResult> {
  let crawl: CallbackCrawl;
  try {
    crawl = new CallbackCrawl(roots, options);
  } catch (error) {
    return Promise.reject(error);
  }
  for (const root of crawl.admitRoots()) new Fetcher(root.url, crawl, root.maxRedirect).fetch();
  return runCallbackLoop(crawl).then(
    () => {
      crawl.close();
      return crawl.result();
    },
    (error: unknown) => {
      crawl.close();
      throw error;
    },
  );
}
