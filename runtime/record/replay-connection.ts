// ReplayConnection: what a replayed Socket holds instead of a node:net connection. It never
// touches the network: writes are accepted and dropped (the recorded peer already answered),
// and every input (connected, bytes, EOF, errors) is fed to the Socket by the replay.
//
// Invariants: it models only what a Socket reads of a connection's state, the way Node
// behaves for writes that fit: bytes written while corked count in `writableLength` until
// the tick's uncork sends them; after end() or destroy() the flags say so.

import type { SocketConnection } from '../socket';

export class ReplayConnection implements SocketConnection {
  writableLength = 0;
  writableCorked = 0;
  writableEnded = false;
  destroyed = false;

  setNoDelay(_noDelay: boolean): this {
    return this;
  }
  once(_event: string, _listener: (...args: never[]) => void): this {
    return this;
  }
  on(_event: string, _listener: (...args: never[]) => void): this {
    return this;
  }
  removeAllListeners(_event?: string): this {
    return this;
  }
  write(data: Uint8Array): boolean {
    if (this.writableCorked > 0) this.writableLength += data.length;
    return true;
  }
  cork(): void {
    this.writableCorked++;
  }
  uncork(): void {
    if (this.writableCorked > 0) this.writableCorked--;
    if (this.writableCorked === 0) this.writableLength = 0;
  }
  end(): this {
    this.writableEnded = true;
    return this;
  }
  destroy(): this {
    this.destroyed = true;
    this.writableLength = 0;
    return this;
  }
  destroySoon(): void {
    this.writableEnded = true;
    this.destroy();
  }
  resetAndDestroy(): this {
    return this.destroy();
  }
  pause(): this {
    return this;
  }
  resume(): this {
    return this;
  }
}
