// Bindings in their temporal dead zone, live and past (runtime/inspect/lexical-bindings.ts): a program
// (test/fixtures/dead-zone.ts) recorded in the runtime host stops on a line breakpoint where `let` and `const`
// bindings are declared later (V8's scopes read them `undefined`; reading one would throw). The line debugger's
// Variables show them `<uninitialized>`, and so does the suspended coroutine's frame (taskDetail of `waiter`,
// suspended inside its `got` declaration), while a binding declared without a value reads `undefined`. The same
// stop seen again in the past (a step over, then Step Back: replayed in the line replay host) and the tick's
// past moment (seekTick, replayed) show the same. Bindings of an enclosing function (a Closure scope) and of a
// `switch` whose `case` a jump skipped (held in a context) read the same, decided by V8 itself at the stop:
// `<uninitialized>` in their dead zone, their value once set; a skipped case's stack slot says it cannot tell. Runs against the bundle (worker and replay host run it).
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
const PEEK = lineOf(PROGRAM, 'const seen = early;');
const IN_CASE = lineOf(PROGRAM, 'const inCase = kind + 1;');

/** The stop's top frame, scope by scope (Locals and Blocks, or `named` ones): each variable's value by name. */
async function lineScopes(
  host: HostClient,
  named: RegExp = /^(Locals|Block)$/,
): Promise<Record<string, Record<string, string>>> {
  const stack = await host.rpc.request('lineStack', {});
  const top = stack.frames[0]!;
  const out: Record<string, Record<string, string>> = {};
  for (const [i, scope] of top.scopes.entries()) {
    if (!named.test(scope.name)) continue;
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
    assert.equal(
      await inWaiter(host, 'got + 1'),
      "evaluate: the expression threw ReferenceError: Cannot access 'got' before initialization",
    );
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
    assert.equal(
      await inWaiter(host, 'got + 1'),
      "evaluate: the expression threw ReferenceError: Cannot access 'got' before initialization",
    );
    await host.rpc.request('seekTick', { tick: null });
  });
});

describe('bindings of a closure and of a skipped `case` in their dead zone, live and past (bundle)', {
  timeout: 120_000,
}, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  /** Every scope of the stop's top frame but the module's own: the names read in it, by scope. */
  const seenAt = async (): Promise<Record<string, Record<string, string>>> =>
    lineScopes(host, /^(Locals|Block|Closure.*)$/);
  /** The one scope holding `name`: its variables. */
  const holding = (scopes: Record<string, Record<string, string>>, name: string): Record<string, string> => {
    const found = Object.values(scopes).filter((s) => name in s);
    assert.equal(found.length, 1, `one scope holds ${name}: ${JSON.stringify(scopes)}`);
    return found[0]!;
  };
  const next = async (line: number): Promise<HostEvents['paused']> => {
    const stop = await host.continueToLineStop(30_000);
    assert.equal(stop.line?.line, line);
    return stop;
  };

  test('a closure reads <uninitialized> before the binding is set, its value after; a skipped case too', async () => {
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    await host.rpc.request('setBreakpoints', {
      file: PROGRAM,
      breakpoints: [
        { file: PROGRAM, line: PEEK },
        { file: PROGRAM, line: IN_CASE },
      ],
    });

    // peek(false): `late` of main (its Closure scope here) is in its dead zone; `early` holds its value.
    await next(PEEK);
    const first = await seenAt();
    const closure = holding(first, 'late');
    assert.equal(closure.late, '<uninitialized>');
    assert.match(closure.early ?? '', /^\d+$/);
    assert.equal(holding(first, 'seen').seen, '<uninitialized>');
    // Over the line and back: the past stop (line replay host) shows the same.
    const over = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.notEqual(over.line?.line, PEEK);
    assert.equal(holding(await seenAt(), 'late').late, '<uninitialized>');
    const back = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.equal(back.line?.line, PEEK);
    assert.equal(back.pastLine, true);
    assert.deepEqual(await seenAt(), first);

    // caseJump(1): the jump to `case 1` skipped `case 0`'s declarations: `skipped` (in a context) reads
    // uninitialized; `fell`, a stack slot V8 reads `undefined` whether it ran or not, says it may be either.
    await next(IN_CASE);
    const jumped = holding(await seenAt(), 'skipped');
    assert.deepEqual(
      { skipped: jumped.skipped, fell: jumped.fell, inCase: jumped.inCase },
      { skipped: '<uninitialized>', fell: '<uninitialized or undefined>', inCase: '<uninitialized>' },
    );
    // caseJump(0): fallen into `case 1`: `skipped` ran; `fell`, declared without a value, is undefined: not told.
    await next(IN_CASE);
    const fellInto = holding(await seenAt(), 'skipped');
    assert.deepEqual(
      { skipped: fellInto.skipped, fell: fellInto.fell, inCase: fellInto.inCase },
      { skipped: '5', fell: '<uninitialized or undefined>', inCase: '<uninitialized>' },
    );
    const overCase = await moved(host, () => host.rpc.request('lineStep', { kind: 'over' }));
    assert.notEqual(overCase.line?.line, IN_CASE);
    const backCase = await moved(host, () => host.rpc.request('lineStepBack', {}));
    assert.equal(backCase.line?.line, IN_CASE);
    assert.equal(backCase.pastLine, true);
    assert.deepEqual(holding(await seenAt(), 'skipped'), fellInto);

    // peek(true): `late` is set now, its value shown.
    await next(PEEK);
    assert.match(holding(await seenAt(), 'late').late ?? '', /^\d+$/);
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [] });
  });
});

describe("a loop's body bindings at its next turn, live and past (bundle)", { timeout: 120_000 }, () => {
  let host: HostClient;
  before(() => {
    host = forkHost({ bundle: BUNDLE, pipe: true });
  });
  after(async () => {
    await host.close();
  });

  /** `main`'s suspended frame at the moment shown: its locals' value texts. */
  async function mainFrame(): Promise<Record<string, string>> {
    const snapshot = await host.rpc.request('snapshot', {});
    const main = snapshot.tasks.find((t) => t.name === 'main');
    assert.ok(main !== undefined, snapshot.tasks.map((t) => t.name).join(', '));
    const detail = await host.rpc.request('taskDetail', { taskId: main.id });
    const frame = detail.frames.find((f) => f.name === 'main');
    assert.ok(frame !== undefined, detail.frames.map((f) => f.name).join(', '));
    return Object.fromEntries(frame.locals.map((l) => [l.name, l.value]));
  }

  test("its second turn reads them <uninitialized> before their declarations, not the first turn's values", async () => {
    await host.rpc.request('launch', {
      target: { kind: 'program', path: PROGRAM },
      options: { stopOnEntry: true, record: true },
    });
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [{ file: PROGRAM, line: STOP }] });
    await host.continueToLineStop(30_000);
    // The second turn: V8's registers still hold the first turn's `inLoop` and `laterInLoop`.
    const second = await host.continueToLineStop(30_000);
    assert.equal(second.line?.line, STOP);
    await host.rpc.request('setBreakpoints', { file: PROGRAM, breakpoints: [] });
    const body = Object.values(await lineScopes(host)).find((s) => 'inLoop' in s);
    assert.ok(body !== undefined);
    assert.deepEqual(
      { inLoop: body.inLoop, laterInLoop: body.laterInLoop },
      {
        inLoop: '<uninitialized>',
        laterInLoop: '<uninitialized>',
      },
    );

    // To the end, then the tick of that stop seen in the past: main is suspended in the second turn's sleep,
    // its `inLoop` set, its `laterInLoop` not yet (the first turn's value is still in its register).
    const from = host.events.length;
    await host.rpc.request('continue', {});
    await host.waitFor('finished', () => true, 30_000, from);
    await host.rpc.request('seekTick', { tick: second.tick, replayed: true });
    const suspended = await mainFrame();
    // Turn 0: inLoop 0 + 1, laterInLoop 2, early 1 + 2 = 3; turn 1: inLoop 1 + 3 = 4.
    assert.deepEqual(
      { early: suspended.early, inLoop: suspended.inLoop, laterInLoop: suspended.laterInLoop },
      { early: '3', inLoop: '4', laterInLoop: '<uninitialized>' },
    );
  });
});
