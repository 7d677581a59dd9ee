// Test helper: the demo site's delays on node:test's mocked setTimeout, so a test says by how many
// milliseconds of the site's own clock a response was held, whatever the machine's load.
//
// Invariants: the clock moves only by tick(); a delay is read from the site's answerCount(), which
// moves inside tick() (the timer's callback answers synchronously), never from arrival times.
import type { TestContext } from 'node:test';
import type { DemoSite } from '../../../runtime/demo-site';

/** Mocks setTimeout for the rest of test `t` (the site schedules its delays through it). */
export function mockSiteClock(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout'] });
}

/** Resolves once `cond()` holds, looking again after each turn of Node's loop (no wall-clock bound). */
export async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Sends a request with `send` and moves the mocked clock one millisecond at a time until the site
 * answers it; returns those milliseconds and what `send` resolved to. Fails past `maxMs`.
 */
export async function heldFor<T>(
  t: TestContext,
  site: DemoSite,
  send: () => Promise<T>,
  maxMs: number,
): Promise<{ ms: number; reply: T }> {
  const requests = site.requestCount();
  const answers = site.answerCount();
  const reply = send();
  await until(() => site.requestCount() > requests);
  let ms = 0;
  while (site.answerCount() === answers) {
    if (ms >= maxMs) throw new Error(`the site did not answer within ${maxMs} ms of its clock`);
    t.mock.timers.tick(1);
    ms++;
  }
  return { ms, reply: await reply };
}
