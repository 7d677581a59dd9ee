// HttpConnection: one TCP (or TLS) connection to an origin, with its stream reader and
// writer, as the pool lends it out. A connection carries one request at a time; it goes
// back to the pool only after a response was read to its end and the server allows reuse.

import { EVENT_READ } from '../selector';
import type { StreamReader, StreamWriter } from '../streams';

export class HttpConnection {
  readonly origin: string;
  readonly reader: StreamReader;
  readonly writer: StreamWriter;
  /** Requests sent on this connection so far. */
  requests = 0;
  /** Loop time when it was last returned to the pool. */
  idleSince = 0;
  private _closed = false;

  constructor(origin: string, reader: StreamReader, writer: StreamWriter) {
    this.origin = origin;
    this.reader = reader;
    this.writer = writer;
  }

  isClosed(): boolean {
    return this._closed || this.writer.socket.isClosed();
  }

  /**
   * Whether an idle connection can carry a new request: open, and nothing arrived while it
   * sat in the pool (bytes or EOF there mean the server closed it or misbehaved).
   */
  isReusable(): boolean {
    if (this.isClosed()) return false;
    const sock = this.writer.socket;
    const reader = this.reader;
    return (
      reader.bufferedBytes() === 0 &&
      !reader._isEof() &&
      reader.exception() === undefined &&
      (sock._readyMask() & EVENT_READ) === 0
    );
  }

  close(): void {
    if (this._closed) return;
    this._closed = true;
    if (this.origin.startsWith('https:')) {
      // Socket.abort() resets the connection with net.Socket.resetAndDestroy(), which Node
      // refuses on a TLS socket (TypeError ERR_INVALID_HANDLE_TYPE). Close the socket first,
      // without a reset; abort() then only finishes the writer (drops its buffer, wakes waiters).
      this.writer.socket.close();
    }
    this.writer.abort();
  }
}
