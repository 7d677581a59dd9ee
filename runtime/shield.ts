// shield(): protect an awaitable from cancellation, as asyncio.shield. Cancelling the
// task that awaits the shield cancels only the outer future it gets; the inner awaitable
// keeps running and its outcome goes nowhere.

import { Future } from './future';
import type { Awaitable } from './loop';
import { getRunningLoop } from './running-loop';

export function shield<T>(aw: Awaitable<T>): Future<T> {
  const loop = aw instanceof Future ? aw.getLoop() : getRunningLoop();
  const inner = loop.ensureFuture(aw);
  if (inner.done()) return inner;
  const outer = loop.createFuture<T>();
  outer._origin = { kind: 'shield', target: inner };
  const innerDone = (f: Future<T>): void => {
    if (outer.cancelled()) {
      if (!f.cancelled()) f.exception();
      return;
    }
    if (f.cancelled()) outer.cancel();
    else {
      const exc = f.exception();
      if (exc !== undefined) outer.setException(exc);
      else outer.setResult(f.result());
    }
  };
  const outerDone = (): void => {
    if (!inner.done()) inner.removeDoneCallback(innerDone);
  };
  inner.addDoneCallback(innerDone);
  outer.addDoneCallback(outerDone);
  return outer;
}
