// A program loop of a line stop as DAP scopes and variables (extension/debug/program-loop-variables.ts): the
// scope named after the loop; its parts (ready list, sockets, timers, threads or processes) counted with a
// reference only when there is something to expand, sockets shown for a selector or busy loop even with none,
// its notes numbered when more than one; each part's rows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProgramLoopState } from '../../../protocol/host-protocol';
import {
  programLoopScope,
  programLoopVariables,
  type ProgramLoopPart,
} from '../../../extension/debug/program-loop-variables';

const REFS: Record<ProgramLoopPart, number> = { loop: 10, ready: 11, sockets: 12, timers: 13, workers: 14 };
const refOf = (part: ProgramLoopPart): number => REFS[part];

const BUSY: ProgramLoopState = {
  kind: 'selector',
  title: 'selector of fetch()',
  running: 'Fetcher.connected',
  ready: ['Fetcher.readResponse', 'Task.step'],
  sockets: [{ fd: 7, events: 'read', callback: 'Fetcher.readResponse', socket: '127.0.0.1:80' }],
  timers: [{ dueInMs: 12.6, callback: 'retry' }],
  workers: [],
  notes: ['one note'],
};

const IDLE: ProgramLoopState = {
  kind: 'processes',
  title: 'process pool',
  running: null,
  ready: [],
  sockets: [],
  timers: [],
  workers: [
    { kind: 'process', name: 'worker-1', state: 'running' },
    { kind: 'process', name: 'worker-2', state: 'exited 0' },
  ],
  notes: ['first', 'second'],
};

describe('program loop variables', () => {
  it('one scope per loop, named after it', () => {
    assert.deepEqual(programLoopScope(BUSY, 4), {
      name: 'Program loop: selector of fetch()',
      variablesReference: 4,
      expensive: false,
    });
  });

  it("a loop's own variables: what runs, each part counted, expandable only when not empty, the note", () => {
    assert.deepEqual(programLoopVariables(BUSY, 'loop', refOf), [
      { name: 'running', value: 'Fetcher.connected', variablesReference: 0 },
      { name: 'ready', value: '2 entries', variablesReference: 11 },
      { name: 'sockets', value: '1 socket registered', variablesReference: 12 },
      { name: 'timers', value: '1 timer', variablesReference: 13 },
      { name: 'note', value: 'one note', variablesReference: 0 },
    ]);
  });

  it('an idle loop: nothing running, no sockets row for a loop without a selector, its processes, notes numbered', () => {
    assert.deepEqual(programLoopVariables(IDLE, 'loop', refOf), [
      { name: 'running', value: '(nothing: between callbacks)', variablesReference: 0 },
      { name: 'ready', value: '0 entries', variablesReference: 0 },
      { name: 'timers', value: '0 timers', variablesReference: 0 },
      { name: 'processes', value: '2', variablesReference: 14 },
      { name: 'note 1', value: 'first', variablesReference: 0 },
      { name: 'note 2', value: 'second', variablesReference: 0 },
    ]);
    // A selector (or busy) loop says it watches no socket; threads are named so.
    const selector = { ...IDLE, kind: 'busy', workers: [{ kind: 'thread' as const, name: 't', state: 'idle' }] };
    const names = programLoopVariables(selector, 'loop', refOf).map((v) => [v.name, v.value]);
    assert.deepEqual(names.slice(2, 5), [
      ['sockets', '0 sockets registered'],
      ['timers', '0 timers'],
      ['threads', '1'],
    ]);
  });

  it("each part's rows", () => {
    const rows = (loop: ProgramLoopState, part: ProgramLoopPart) =>
      programLoopVariables(loop, part, refOf).map((v) => [v.name, v.value, v.variablesReference]);
    assert.deepEqual(rows(BUSY, 'ready'), [
      ['0', 'Fetcher.readResponse', 0],
      ['1', 'Task.step', 0],
    ]);
    assert.deepEqual(rows(BUSY, 'sockets'), [['fd 7', 'read → Fetcher.readResponse: 127.0.0.1:80', 0]]);
    assert.deepEqual(rows(BUSY, 'timers'), [['0', 'in 13 ms → retry', 0]]);
    assert.deepEqual(rows(IDLE, 'workers'), [
      ['worker-1', 'running', 0],
      ['worker-2', 'exited 0', 0],
    ]);
  });
});
