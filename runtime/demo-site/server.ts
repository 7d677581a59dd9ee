// The embedded demo website: a loopback HTTP/1.1 server (node:http only) serving the SiteModel,
// so the crawler runs offline and tests get deterministic, hostile and instructive pages.
//
// Invariants:
// - Routing is the model's: what it answers at a path is what `expectedOutcomes()` predicts.
// - Non-fault responses have Content-Length, keep-alive, and no Date header (byte-identical).
// - Delays (`latencyMs`, seeded `jitterMs`, `slowMs`) are timers the server owns.
// - close() resolves promptly: stops listening, cancels timers, destroys every socket.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { respondWithFault, type FaultContext } from './faults';
import {
  renderBinaryData,
  renderBrokenPage,
  renderContentPage,
  renderHomePage,
  renderMarkupTitlePage,
  renderNotFoundPage,
  renderPagesJson,
  renderPrivatePage,
  renderRedirectPage,
  renderRobotsTxt,
  renderSlowPage,
} from './pages';
import {
  BINARY_CONTENT_TYPE,
  BROKEN_CONTENT_TYPE,
  DeterministicRandom,
  HTML_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
  SiteModel,
  TEXT_CONTENT_TYPE,
  type SiteModelOptions,
  type SiteRoute,
} from './site-model';

export interface DemoSiteOptions extends SiteModelOptions {
  /** Port to listen on; 0 (the default) picks an ephemeral port. */
  readonly port?: number;
  /** Address to listen on. Default 127.0.0.1. */
  readonly host?: string;
  /** Delay added to every response, in milliseconds. Default 0. */
  readonly latencyMs?: number;
  /** Up to this many milliseconds more on each response, drawn pseudo-randomly. Default 0. */
  readonly jitterMs?: number;
  /** Delay of the `/slow/N/` pages, in milliseconds (on top of latencyMs). Default 300. */
  readonly slowMs?: number;
}

export interface DemoSite {
  /** The home page, e.g. `http://127.0.0.1:PORT/`. */
  readonly url: string;
  readonly port: number;
  readonly model: SiteModel;
  /** Stops the server and destroys every connection; resolves once it is closed. Idempotent. */
  close(): Promise<void>;
  /** Requests received so far (every method and route, faults included). */
  requestCount(): number;
  /** Responses begun so far: requests answered after their delay (faults included; a 405 too). */
  answerCount(): number;
}

export const DEFAULT_SLOW_MS = 300;

function checkDelay(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new RangeError(`demo site: ${name} must be a finite number >= 0, got ${String(value)}`);
  }
}

/** The path of an origin-form (`/x?y`) or absolute-form request target; null for others. */
function pathnameOf(requestTarget: string | undefined): string | null {
  const target = requestTarget ?? '/';
  // Origin-form is taken verbatim (routes match exactly): parsing `//x/` as a URL would
  // read `x` as a host.
  if (target.startsWith('/')) return target.replace(/[?#].*$/s, '');
  try {
    return new URL(target).pathname;
  } catch {
    return null;
  }
}

interface Body {
  readonly status: number;
  readonly contentType: string;
  readonly body: string | Buffer;
  readonly location?: string;
}

/** The complete response of every route that is not a fault. */
function bodyOf(model: SiteModel, route: Exclude<SiteRoute, { kind: 'fault' }>): Body {
  switch (route.kind) {
    case 'home':
      return { status: 200, contentType: HTML_CONTENT_TYPE, body: renderHomePage(model) };
    case 'page':
      return { status: 200, contentType: HTML_CONTENT_TYPE, body: renderContentPage(model, route.n) };
    case 'slow':
      return { status: 200, contentType: HTML_CONTENT_TYPE, body: renderSlowPage(model, route.n) };
    case 'markup-title':
      return { status: 200, contentType: HTML_CONTENT_TYPE, body: renderMarkupTitlePage(model) };
    case 'private':
      return { status: 200, contentType: HTML_CONTENT_TYPE, body: renderPrivatePage(model) };
    case 'broken':
      return { status: 200, contentType: BROKEN_CONTENT_TYPE, body: renderBrokenPage(model) };
    case 'redirect':
      return {
        status: 301,
        contentType: HTML_CONTENT_TYPE,
        body: renderRedirectPage(route.location),
        location: route.location,
      };
    case 'binary':
      return { status: 200, contentType: BINARY_CONTENT_TYPE, body: renderBinaryData(model) };
    case 'robots':
      return { status: 200, contentType: TEXT_CONTENT_TYPE, body: renderRobotsTxt() };
    case 'api':
      return { status: 200, contentType: JSON_CONTENT_TYPE, body: renderPagesJson(model) };
    case 'not-found':
      return { status: 404, contentType: HTML_CONTENT_TYPE, body: renderNotFoundPage() };
  }
}

function send(res: ServerResponse, response: Body): void {
  const body = typeof response.body === 'string' ? Buffer.from(response.body, 'utf8') : response.body;
  const headers: Record<string, string> = {
    'Content-Type': response.contentType,
    'Content-Length': String(body.length),
  };
  if (response.location !== undefined) headers.Location = response.location;
  res.writeHead(response.status, headers);
  res.end(body); // node:http drops the body of a HEAD response itself
}

/** Starts the demo site; resolves once it listens. */
export function startDemoSite(options: DemoSiteOptions = {}): Promise<DemoSite> {
  const model = new SiteModel({
    pages: options.pages,
    linksPerPage: options.linksPerPage,
    pageBytes: options.pageBytes,
    seed: options.seed,
    faults: options.faults,
  });
  const host = options.host ?? '127.0.0.1';
  const latencyMs = options.latencyMs ?? 0;
  const jitterMs = options.jitterMs ?? 0;
  const slowMs = options.slowMs ?? DEFAULT_SLOW_MS;
  checkDelay('latencyMs', latencyMs);
  checkDelay('jitterMs', jitterMs);
  checkDelay('slowMs', slowMs);
  const jitter = new DeterministicRandom(model.options.seed, 0x6a177e5);

  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let requests = 0;
  let answers = 0;
  let closing: Promise<void> | null = null;

  const schedule = (ms: number, fn: () => void): void => {
    if (closing !== null) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const faultContext: FaultContext = { schedule };

  const respond = (req: IncomingMessage, res: ServerResponse, route: SiteRoute): void => {
    if (res.destroyed || req.socket.destroyed) return;
    answers++;
    try {
      if (route.kind === 'fault') respondWithFault(route.fault, req, res, faultContext);
      else send(res, bodyOf(model, route));
    } catch (error) {
      // A bug of the site must not take the test process down: answer 500 or drop the line.
      if (!res.headersSent) send(res, { status: 500, contentType: TEXT_CONTENT_TYPE, body: `${String(error)}\n` });
      else res.destroy();
    }
  };

  const server = createServer({ noDelay: true }, (req, res) => {
    requests++;
    res.sendDate = false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      answers++;
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': TEXT_CONTENT_TYPE, 'Content-Length': '19' });
      res.end('Method Not Allowed\n');
      return;
    }
    const pathname = pathnameOf(req.url);
    const route: SiteRoute = pathname === null ? { kind: 'not-found' } : model.route(pathname);
    const delay = latencyMs + (jitterMs > 0 ? jitter.next() * jitterMs : 0) + (route.kind === 'slow' ? slowMs : 0);
    if (delay > 0) schedule(delay, () => respond(req, res, route));
    else respond(req, res, route);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Malformed requests get a 400; a connection the peer already broke is just dropped.
    if (error.code !== 'ECONNRESET' && socket.writable) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    } else {
      socket.destroy();
    }
  });

  const close = (): Promise<void> => {
    if (closing === null) {
      closing = new Promise<void>((resolve) => {
        server.close(() => resolve());
      });
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
    }
    return closing;
  };

  return new Promise<DemoSite>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: options.port ?? 0, host }, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('demo site: server has no TCP address'));
        return;
      }
      const urlHost = address.address.includes(':') ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${urlHost}:${address.port}/`,
        port: address.port,
        model,
        close,
        requestCount: () => requests,
        answerCount: () => answers,
      });
    });
  });
}
