// Fault routes of the demo website (`/fault/*`, only with `faults: true`): responses that break
// the HTTP exchange itself, so clients and their tracebacks are tested against hostile servers.
//
// Invariants:
// - Every fault ends by itself or when its connection goes; none keeps the server from closing
//   (delays go through the server's `schedule`, which close() cancels).
// - Raw responses (bad-chunk, wrong-length) bypass node:http's framing and close the connection.
// - The endless body respects backpressure (writes only while write() returns true).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { FAULT_BEHAVIOUR, HTML_CONTENT_TYPE, type StreamFault } from './site-model';

/** What a fault needs from the server that runs it. */
export interface FaultContext {
  /** Runs `fn` after `ms` milliseconds unless the server closes first. */
  schedule(ms: number, fn: () => void): void;
}

/** The declared length of the reset and wrong-length bodies; half of it is actually sent. */
export const FAULT_DECLARED_LENGTH = 4096;
/** Size of each chunk of the endless body. */
export const ENDLESS_CHUNK_BYTES = 16 * 1024;
/** How long the reset fault leaves the partial body in flight before it resets the connection. */
const RESET_DELAY_MS = 25;

/** Deterministic filler HTML of exactly `bytes` bytes (ASCII), with no links. */
function fillerHtml(bytes: number, label: string): Buffer {
  const unit = `<p>${label}: this body is part of a fault route of the Coroscope demo site.</p>\n`;
  return Buffer.from(unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes), 'latin1');
}

function rawHead(status: string, headers: readonly string[]): string {
  return `HTTP/1.1 ${status}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
}

/** Serves fault route `fault` on `res`. */
export function respondWithFault(
  fault: StreamFault,
  req: IncomingMessage,
  res: ServerResponse,
  context: FaultContext,
): void {
  const socket = req.socket;
  switch (fault) {
    case 'reset': {
      // Headers and half the declared body, then an RST (not a FIN): the client sees ECONNRESET.
      res.writeHead(FAULT_BEHAVIOUR.reset.status, {
        'Content-Type': HTML_CONTENT_TYPE,
        'Content-Length': String(FAULT_DECLARED_LENGTH),
      });
      res.write(fillerHtml(FAULT_DECLARED_LENGTH / 2, 'reset'), () => {
        context.schedule(RESET_DELAY_MS, () => {
          if (!socket.destroyed) socket.resetAndDestroy();
        });
      });
      return;
    }
    case 'stall':
      // Headers promise a body that never comes; the client's timeout or close() ends it.
      res.writeHead(FAULT_BEHAVIOUR.stall.status, {
        'Content-Type': HTML_CONTENT_TYPE,
        'Content-Length': String(FAULT_DECLARED_LENGTH),
      });
      res.flushHeaders();
      return;
    case 'bad-chunk': {
      const first = Buffer.from('<!DOCTYPE html>\n<p>The next chunk-size line is not hexadecimal.</p>\n');
      socket.end(
        rawHead(`${FAULT_BEHAVIOUR['bad-chunk'].status} OK`, [
          `Content-Type: ${HTML_CONTENT_TYPE}`,
          'Transfer-Encoding: chunked',
          'Connection: close',
        ]) +
          `${first.length.toString(16)}\r\n${first.toString('latin1')}\r\n` +
          'zz-not-a-chunk-size\r\n<p>garbage</p>\r\n0\r\n\r\n',
        'latin1',
      );
      return;
    }
    case 'endless':
      serveEndless(req, res);
      return;
    case 'no-location': {
      const body = Buffer.from('<!DOCTYPE html>\n<p>Moved Permanently, but the server forgot where.</p>\n');
      res.writeHead(FAULT_BEHAVIOUR['no-location'].status, {
        'Content-Type': HTML_CONTENT_TYPE,
        'Content-Length': String(body.length),
      });
      res.end(body);
      return;
    }
    case 'wrong-length':
      // The header promises FAULT_DECLARED_LENGTH bytes; half arrive before the connection ends.
      socket.write(
        rawHead(`${FAULT_BEHAVIOUR['wrong-length'].status} OK`, [
          `Content-Type: ${HTML_CONTENT_TYPE}`,
          `Content-Length: ${FAULT_DECLARED_LENGTH}`,
          'Connection: close',
        ]),
        'latin1',
      );
      socket.end(fillerHtml(FAULT_DECLARED_LENGTH / 2, 'wrong-length'));
      return;
  }
}

/** A chunked body that never ends, written with backpressure until the response closes. */
function serveEndless(req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(FAULT_BEHAVIOUR.endless.status, { 'Content-Type': HTML_CONTENT_TYPE });
  if (req.method === 'HEAD') {
    // A HEAD response has no body: writes would be dropped and never push back.
    res.end();
    return;
  }
  const chunk = fillerHtml(ENDLESS_CHUNK_BYTES, 'endless');
  let closed = false;
  res.once('close', () => {
    closed = true;
  });
  const pump = (): void => {
    while (!closed && !res.destroyed) {
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
  };
  pump();
}
