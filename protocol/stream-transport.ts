// StreamTransport: an rpc Transport over a byte stream (a pipe), one JSON message per line.
// JSON.stringify never writes a raw newline, so a newline always ends a message. Used
// between the runtime host and its clients when the host is started with a client pipe
// (runtime/host/main-thread/main.ts), because that pipe stays readable while the host's main thread is
// stopped on a line, unlike the IPC channel.
//
// Invariants: a message is delivered only once its line is complete; bytes are decoded as one
// UTF-8 stream (a character split across chunks arrives whole); a line that is not JSON is
// reported through `onBadLine` and skipped; sends after close are dropped.

/** The parts of a node Duplex stream this needs (protocol/ imports nothing). */
export interface ByteStream {
  write(chunk: string): unknown;
  /** Bytes (a stream with no encoding set), or text (one that decodes itself). */
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

import type { Transport } from './rpc';

export class StreamTransport implements Transport {
  private buffered = '';
  /** One decoder for the whole stream: a chunk may end inside a character. */
  private readonly decoder = new TextDecoder('utf-8');
  private closed = false;
  private readonly receivers: Array<(message: unknown) => void> = [];
  private readonly closers: Array<(reason: string) => void> = [];
  onBadLine: (line: string) => void = () => undefined;

  constructor(private readonly stream: ByteStream) {
    stream.on('data', (chunk) =>
      this.take(typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true })),
    );
    stream.on('close', () => this.close('the pipe closed'));
    stream.on('error', (e) => this.close(`the pipe failed: ${e.message}`));
  }

  send(message: unknown): void {
    if (this.closed) return;
    this.stream.write(`${JSON.stringify(message)}\n`);
  }

  /** Sends a message already serialised as JSON (one line, no newline). */
  sendRaw(json: string): void {
    if (this.closed) return;
    this.stream.write(`${json}\n`);
  }

  onMessage(receive: (message: unknown) => void): void {
    this.receivers.push(receive);
  }

  onClose(closed: (reason: string) => void): void {
    this.closers.push(closed);
  }

  isClosed(): boolean {
    return this.closed;
  }

  private take(text: string): void {
    this.buffered += text;
    let nl = this.buffered.indexOf('\n');
    while (nl >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      if (line.trim() !== '') {
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          this.onBadLine(line);
          message = undefined;
        }
        if (message !== undefined) for (const r of this.receivers) r(message);
      }
      nl = this.buffered.indexOf('\n');
    }
  }

  private close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.closers) c(reason);
  }
}
