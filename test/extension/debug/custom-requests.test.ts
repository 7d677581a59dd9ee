// Tests of extension/debug/custom-requests.ts: the custom DAP names the adapter and the extension
// agree on, and the narrowing of bodies received as `unknown`: the task a followTask names (null:
// none; undefined: nothing valid), a line step mode or null, and a tasks answer whose malformed rows
// are dropped and whose optional fields get their documented defaults.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEADLOCK_EVENT,
  FOLLOW_TASK_REQUEST,
  LINE_STEP_MODE_REQUEST,
  TASKS_CHANGED_EVENT,
  TASKS_REQUEST,
  TRACES_REQUEST,
  narrowFollowTask,
  narrowLineStepMode,
  narrowTasksBody,
  type TaskRow,
} from '../../../extension/debug/custom-requests';

test('the custom request and event names, all under coroscope/', () => {
  assert.deepEqual(
    [TASKS_REQUEST, TASKS_CHANGED_EVENT, DEADLOCK_EVENT, TRACES_REQUEST, LINE_STEP_MODE_REQUEST, FOLLOW_TASK_REQUEST],
    [
      'coroscope/tasks',
      'coroscope/tasksChanged',
      'coroscope/deadlock',
      'coroscope/traces',
      'coroscope/setLineStepMode',
      'coroscope/followTask',
    ],
  );
});

describe('narrowFollowTask', () => {
  test('a positive integer thread id, null to follow none, undefined for anything else', () => {
    const bodies: unknown[] = [
      { threadId: 7 },
      { threadId: null },
      { threadId: 0 },
      { threadId: -3 },
      { threadId: 1.5 },
      { threadId: '7' },
      {},
      null,
      [7],
      7,
    ];
    assert.deepEqual(bodies.map(narrowFollowTask), [
      7,
      null,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe('narrowLineStepMode', () => {
  test('one of the two modes, else null', () => {
    const bodies: unknown[] = [
      { mode: 'stayWithTask' },
      { mode: 'followLoop' },
      { mode: 'FollowLoop' },
      { mode: null },
      { other: 'followLoop' },
      'followLoop',
      undefined,
    ];
    assert.deepEqual(bodies.map(narrowLineStepMode), ['stayWithTask', 'followLoop', null, null, null, null, null]);
  });
});

describe('narrowTasksBody', () => {
  test('a body that is not a record with a tasks array is none', () => {
    assert.deepEqual(
      [narrowTasksBody(null), narrowTasksBody([]), narrowTasksBody({ tasks: {} }), narrowTasksBody('tasks')],
      [null, null, null, null],
    );
  });

  test('a bare body: no tasks, tick 0, not paused, running unless said otherwise', () => {
    assert.deepEqual(narrowTasksBody({ tasks: [] }), { tasks: [], tick: 0, paused: false, running: true });
    assert.deepEqual(narrowTasksBody({ tasks: [], tick: '3', paused: 'yes', running: false }), {
      tasks: [],
      tick: 0,
      paused: false,
      running: false,
    });
  });

  test('a full row is kept as sent; a minimal one gets the defaults; a row without id, name or known state is dropped', () => {
    const full: TaskRow = {
      id: 4,
      name: 'fetch(/a)',
      state: 'suspended',
      steps: 9,
      awaiting: { kind: 'socket.read', detail: 'fd=5', taskId: 2, resourceId: 'sock5' },
      awaitedBy: [1, 3],
      createdBy: 1,
      frames: ['fetch', 'crawl'],
      location: { file: '/p/crawl.ts', line: 12, column: 5 },
      outcome: 'pending',
    };
    const body = narrowTasksBody({
      tasks: [
        full,
        { id: 5, name: 'minimal', state: 'done' },
        { id: '6', name: 'string id', state: 'done' },
        { id: 7, state: 'done' },
        { id: 8, name: 'odd state', state: 'sleeping' },
        null,
        'row',
      ],
      tick: 12,
      paused: true,
      running: true,
    });
    assert.deepEqual(body, {
      tasks: [
        full,
        { id: 5, name: 'minimal', state: 'done', steps: 0, awaiting: null, awaitedBy: [], createdBy: null, frames: [] },
      ],
      tick: 12,
      paused: true,
      running: true,
    });
  });

  test("a row's malformed parts are narrowed away, not trusted", () => {
    const body = narrowTasksBody({
      tasks: [
        {
          id: 1,
          name: 'main',
          state: 'running',
          steps: '3',
          awaiting: { kind: 'lock', detail: 42, taskId: 'x', resourceId: 9, extra: true },
          awaitedBy: [2, '3', null, 4],
          createdBy: '0',
          frames: ['main', 7, 'run'],
          location: { file: '/m.ts', line: 2 },
          outcome: 3,
        },
        { id: 2, name: 'w', state: 'failed', awaiting: { detail: 'no kind' }, location: { file: '/w.ts' } },
      ],
    });
    assert.deepEqual(body?.tasks, [
      {
        id: 1,
        name: 'main',
        state: 'running',
        steps: 0,
        awaiting: { kind: 'lock', detail: '' },
        awaitedBy: [2, 4],
        createdBy: null,
        frames: ['main', 'run'],
        location: { file: '/m.ts', line: 2, column: 1 },
      },
      { id: 2, name: 'w', state: 'failed', steps: 0, awaiting: null, awaitedBy: [], createdBy: null, frames: [] },
    ]);
  });
});
