// The unread rest of a response body, which release() skips so that the connection can carry
// the next request instead of being closed: a redirect's body, chunked and often empty (what
// node:http sends for `res.writeHead(301, {Location}); res.end()`), or a short page nobody
// reads. This is what keeps a crawl on a few connections, as aiohttp and undici do.
// Invariants:
// - Only a small remainder is skipped: at most DRAIN_LIMIT bytes on the wire; a larger one
//   costs less to drop with its connection than to read.
// - measureBufferedBody() looks only at bytes already buffered and consumes nothing: it says
//   where the body ends there, that it has not arrived whole yet, or that it is not worth
//   (or not safe) skipping. It builds no exception object on any path.
// - A remainder that has not arrived whole is waited for at most DRAIN_TIMEOUT seconds (by
//   ClientResponse.release(), which owns the connection).

import type { StreamReader } from '../streams';
import { chunkSizeOf, type BodyFraming } from './response-head';

/** Largest remainder (wire bytes) skipped to keep a connection. */
export const DRAIN_LIMIT = 1 << 16;
/** Seconds a remainder that has not fully arrived is waited for. */
export const DRAIN_TIMEOUT = 1;

/** The body has not arrived whole yet (and may still be small enough to wait for). */
export const BODY_INCOMPLETE = -1;
/** The body is larger than DRAIN_LIMIT, malformed, or close-delimited: drop the connection. */
export const BODY_UNSKIPPABLE = -2;

const LF = Buffer.from('\n');

/**
 * Where the unread body ends in `reader`'s buffer (bytes from the read position), or
 * BODY_INCOMPLETE / BODY_UNSKIPPABLE. Consumes nothing.
 */
export function measureBufferedBody(reader: StreamReader, framing: BodyFraming): number {
  switch (framing.kind) {
    case 'none':
      return 0;
    case 'length':
      // Already here, it costs nothing to skip, whatever its size.
      if (reader.bufferedBytes() >= framing.length) return framing.length;
      return framing.length <= DRAIN_LIMIT ? BODY_INCOMPLETE : BODY_UNSKIPPABLE;
    case 'chunked':
      return measureChunked(reader);
    case 'close':
      return BODY_UNSKIPPABLE;
  }
}

/** Where a chunked body (chunks, last chunk, trailer fields, blank line) ends in the buffer. */
function measureChunked(reader: StreamReader): number {
  const available = reader.bufferedBytes();
  let pos = 0;
  for (;;) {
    const nl = reader._indexOf(LF, pos);
    if (nl < 0) return incompleteOrTooLong(available);
    const size = chunkSizeOf(reader._peek(pos, nl));
    if (size < 0) return BODY_UNSKIPPABLE;
    pos = nl + 1;
    if (size === 0) break;
    pos += size;
    if (pos > DRAIN_LIMIT) return BODY_UNSKIPPABLE;
    // The chunk data ends with a line end, CRLF or LF.
    if (available < pos + 1) return BODY_INCOMPLETE;
    const first = reader._peek(pos, pos + 1)[0];
    if (first === 0x0a) pos += 1;
    else if (first === 0x0d) {
      if (available < pos + 2) return BODY_INCOMPLETE;
      if (reader._peek(pos + 1, pos + 2)[0] !== 0x0a) return BODY_UNSKIPPABLE;
      pos += 2;
    } else return BODY_UNSKIPPABLE;
  }
  // Trailer fields, ignored, up to the blank line.
  for (;;) {
    const nl = reader._indexOf(LF, pos);
    if (nl < 0) return incompleteOrTooLong(available);
    const blank = nl === pos || (nl === pos + 1 && reader._peek(pos, pos + 1)[0] === 0x0d);
    pos = nl + 1;
    if (blank) return pos <= DRAIN_LIMIT ? pos : BODY_UNSKIPPABLE;
    if (pos > DRAIN_LIMIT) return BODY_UNSKIPPABLE;
  }
}

function incompleteOrTooLong(available: number): number {
  return available > DRAIN_LIMIT ? BODY_UNSKIPPABLE : BODY_INCOMPLETE;
}
