// Runs on a runtime host's main thread (a live host's, and a line replay host's).
//
// The runtime host's side of a child_process IPC channel, as an rpc Transport: messages go
// out with process.send and come in on process 'message'; the parent going away
// ('disconnect') closes the transport.
//
// Invariants: sending after the channel closed is a no-op (a reply to a parent that left
// has nowhere to go); a send error (the channel broke mid-write) closes the transport once.

import type { Transport } from '../../../protocol/rpc';

export class IpcTransport implements Transport {
  private receivers: Array<(message: unknown) => void> = [];
  private closers: Array<(reason: string) => void> = [];
  private closed = false;
  private readonly proc: NodeJS.Process;

  constructor(proc: NodeJS.Process = process) {
    this.proc = proc;
    if (typeof proc.send !== 'function')
      throw new Error('the runtime host must be started with an IPC channel (child_process.fork)');
    proc.on('message', (m: unknown) => {
      for (const r of this.receivers) r(m);
    });
    proc.on('disconnect', () => this.close('the client disconnected'));
  }

  send(message: unknown): void {
    if (this.closed || this.proc.connected !== true || this.proc.send === undefined) return;
    this.proc.send(message as object, undefined, {}, (err: Error | null) => {
      if (err !== null && err !== undefined) this.close(`send failed: ${err.message}`);
    });
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

  private close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.closers) c(reason);
  }
}
