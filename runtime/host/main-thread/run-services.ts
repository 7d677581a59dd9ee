// Runs on a runtime host's main thread.
//
// RunServices: what the host (host.ts) gives each Run and its parts: the event sender, the
// coroutine hooks hub, the exception tracer and the host's own log. One set per host, shared
// by every run it makes in turn.

import type { HostEvents } from '../../../protocol/host-protocol';
import type { CoroutineHooksHub } from '../../inspect/coroutine-hooks';
import type { ExceptionTracer } from '../../inspect/traces';

/** Sends a host event to the client. */
export type Emit = <E extends keyof HostEvents & string>(event: E, body: HostEvents[E]) => void;

export interface RunServices {
  emit: Emit;
  hub: CoroutineHooksHub;
  tracer: ExceptionTracer;
  log(text: string): void;
}
