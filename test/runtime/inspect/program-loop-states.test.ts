// runtime/inspect/program-loop-states.ts: every announced program loop as the protocol's
// ProgramLoopState, read through its inspection only, every list cut at 200 entries with the
// rest counted in a note after the loop's own notes.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { inspect } from '../../../runtime/inspection';
import { programLoopStates } from '../../../runtime/inspect/program-loop-states';
import { announceProgramLoop, type ProgramLoopInspection } from '../../../runtime/program-loops';

const withdrawals: Array<() => void> = [];
afterEach(() => {
  for (const withdraw of withdrawals.splice(0)) withdraw();
});

/** Announces a loop whose inspection answers with lists of these lengths. */
function announce(title: string, n: { ready: number; sockets: number; timers: number; workers: number }): void {
  const inspection: ProgramLoopInspection = {
    kind: 'selector',
    title,
    running: () => 'onReadable',
    ready: () => Array.from({ length: n.ready }, (_, i) => `ready ${i}`),
    sockets: () =>
      Array.from({ length: n.sockets }, (_, i) => ({ fd: i, events: 'read', callback: 'cb', socket: `s${i}` })),
    timers: () => Array.from({ length: n.timers }, (_, i) => ({ dueInMs: i, callback: `t${i}` })),
    workers: () =>
      Array.from({ length: n.workers }, (_, i) => ({ kind: 'thread' as const, name: `thread ${i}`, state: 'idle' })),
    notes: () => ['3 tries found the socket not ready'],
  };
  withdrawals.push(announceProgramLoop({ [inspect]: () => inspection }));
}

describe('programLoopStates', () => {
  it('gives a small loop as it is, its notes its own', () => {
    announce('a small loop', { ready: 2, sockets: 1, timers: 1, workers: 1 });
    assert.deepEqual(programLoopStates(), [
      {
        kind: 'selector',
        title: 'a small loop',
        running: 'onReadable',
        ready: ['ready 0', 'ready 1'],
        sockets: [{ fd: 0, events: 'read', callback: 'cb', socket: 's0' }],
        timers: [{ dueInMs: 0, callback: 't0' }],
        workers: [{ kind: 'thread', name: 'thread 0', state: 'idle' }],
        notes: ['3 tries found the socket not ready'],
      },
    ]);
  });

  it('cuts each list at 200 entries, the first ones kept, and counts the rest in a note', () => {
    announce('a big loop', { ready: 200, sockets: 201, timers: 450, workers: 1000 });
    const [state] = programLoopStates();
    assert.deepEqual(
      [state!.ready.length, state!.sockets.length, state!.timers.length, state!.workers.length],
      [200, 200, 200, 200],
    );
    assert.equal(state!.timers[199]!.callback, 't199');
    assert.deepEqual(state!.notes, [
      '3 tries found the socket not ready',
      '1 more socket not listed',
      '250 more timers not listed',
      '800 more threads or processes not listed',
    ]);
  });

  it('lists every announced loop, and none once withdrawn', () => {
    announce('first', { ready: 0, sockets: 0, timers: 0, workers: 0 });
    announce('second', { ready: 0, sockets: 0, timers: 0, workers: 0 });
    assert.deepEqual(
      programLoopStates().map((s) => s.title),
      ['first', 'second'],
    );
    for (const withdraw of withdrawals.splice(0)) withdraw();
    assert.deepEqual(programLoopStates(), []);
  });
});
