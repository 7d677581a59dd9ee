// Bindings in their temporal dead zone, live and past (runtime/inspect/lexical-bindings.ts): a program
// (test/fixtures/dead-zone.ts) recorded in the runtime host stops on a line breakpoint where `let` and `const`
// bindings are declared later (V8's scopes read them `undefined`; reading one would throw). The line debugger's
// Variables show them `<uninitialized>`, and so does the suspended coroutine's frame (taskDetail of `waiter`,
// suspended inside its `got` declaration), while a binding declared without a value reads `undefined`. The same
// stop seen again in the past (a step over, then Step Back: replayed in the line replay host) and the tick's
// past moment (seekTick, replayed) show the same. Runs against the bundle (worker and replay host run it).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { HostEvents } from '../../../../protocol/host-protocol';
import { forkHost, ROOT, type HostClient } from '../host-client';
import { lineOf } from '../../../source-line';
import { distBundle } from '../../../dist-bundles';

const BUNDLE = distBundle('runtime-host.js');
const PROGRAM = join(ROOT, 'test', 'fixtures', 'dead-zone.ts');
const STOP = lineOf(PROGRAM, 'const inLoop = turn + early;');

/** The stop's top frame, scope by scope: each variable's value text by name. */
async function lineScopes(host: HostClient): Promise<Record<string, Record<string, string>>> {
  const stack = await host.rpc.request('lineStack', {});
  const top = stack.frames[0]!;
  const out: Record<string, Record<string, string>> = {};
  for (const [i, scope] of top.scopes.entries()) {
    if (scope.name !== 'Locals' && scope.name !== 'Block') continue;
    const { variables } = await host.rpc.request('lineVariables', { handle: scope.handle });
    out[`${scope.name} ${i}`] = Object.fromEntries(variables.map((v) => [v.name, v.value]));
  }
  return out;
}

/** The suspended `waiter` task's frames: each frame's function and its locals' value texts. */
async function waiterFrames(host: HostClient): Promise<Array<[string, Record<string, string>]>> {
  const snapshot = await host.rpc.request('snapshot', {});
  const waiter = snapshot.tasks.find((t) => t.name === 'waiter');
  assert.ok(waiter !== undefined, `a waiter among ${snapshot.tasks.map((t) => t.name).join(', ')}`);
  const detail = await host.rpc.request('taskDetail', { taskId: waiter.id });
  return detail.frames.map((f) => [f.name, Object.fromEntries(f.locals.map((l) => [l.name, l.value]))]);
}

/** Evaluating `expression` in the `waiter` task's own frame: its value, or the error it threw. */
async function inWaiter(host: HostClient, expression: string): Promise<string> {
  const snapshot = await host.rpc.request('snapshot', {});
  const taskId = snapshot.tasks.find((t) => t.name === 'waiter')!.id;
  const detail = await host.rpc.request('taskDetail', { taskId });
  const frameIndex = detail.frames.findIndex((f) => f.name === 'waiter');
  try {
    return (await host.rpc.request('evaluate', { expression, taskId, frameIndex })).value;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** A move and the `paused` it shows. */
async function moved(host: HostClient, ask: () => Promise<unknown>): Promise<HostEvents['paused']> {
  const from = host.events.length;
  await ask();
  return host.waitFor('paused', () => true, 30_000, from);
}

describe('bindings in their temporal dead zone, live and past (bundle)', { timeout: 120_000 }, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  test('read <uninitialized> on a line stop and in a suspended coroutine, the same in the past', async () => {
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [{ file: PROGRAM, line: STOP }] });
    const stop = await host.continueToLineStop(30_000);
    assert.equal(stop.line?.line, STOP);
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [] });

    const live = await lineScopes(host);
    const scopes = Object.values(live);
    const locals = scopes.find((s) => 'early' in s);
    assert.ok(locals !== undefined, JSON.stringify(live));
    assert.equal(locals.early, '1');
    assert.equal(locals.late, '<uninitialized>');
    const body = scopes.find((s) => 'inLoop' in s);
    assert.ok(body !== undefined, JSON.stringify(live));
    assert.equal(body.inLoop, '<uninitialized>', 'the breakpoint line declares it: not run yet');
    assert.equal(body.laterInLoop, '<uninitialized>');
    assert.equal(scopes.find((s) => 'turn' in s)?.turn, '0');

    const liveWaiter = await waiterFrames(host);
    const waiter = liveWaiter.find(([name]) => name === 'waiter')?.[1];
    assert.ok(waiter !== undefined, JSON.stringify(liveWaiter));
    assert.deepEqual(
      { ...waiter },
      {
        q: waiter.q,
        label: '"w"',
        counted: '1',
        before: '1',
        empty: 'undefined',
        got: '<uninitialized>',
        after: '<uninitialized>',
      },
    );

    // Evaluated there, a binding in its dead zone throws as in the frame; one declared without a value is undefined.
    assert.match(await inWaiter(host, 'got + 1'), /ReferenceError: Cannot access 'got' before initialization/);
    assert.equal(await inWaiter(host, 'String(empty) + before'), '"undefined1"');

    // Over the line, then back to it: the stop replayed in the line replay host shows the same.
    const over = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.notEqual(over.line?.line, STOP);
    const back = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.equal(back.line?.line, STOP);
    assert.equal(back.pastLine, true);
    assert.deepEqual(await lineScopes(host), live);
    assert.deepEqual(await waiterFrames(host), liveWaiter);

    // The tick's past moment, replayed: the suspended coroutine's frame as at the live stop's tick.
    await host.rpc.request('seekTick', { tick: null });
    const tick = stop.tick;
    await host.rpc.request('seekTick', { tick: tick - 1, replayed: true });
    const pastTick = await waiterFrames(host);
    assert.equal(pastTick.find(([name]) => name === 'waiter')?.[1].got, '<uninitialized>');
    assert.equal(pastTick.find(([name]) => name === 'waiter')?.[1].empty, 'undefined');
    assert.match(await inWaiter(host, 'got + 1'), /ReferenceError: Cannot access 'got' before initialization/);
    await host.rpc.request('seekTick', { tick: null });
  });
});
