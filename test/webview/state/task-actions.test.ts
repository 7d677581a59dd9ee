// The task detail's actions (webview/state/task-actions.ts): Follow This Task whenever a debug session
// debugs the run (past or present, a task ended or not); Step Task and Cancel as before.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { taskActions } from '../../../webview/state/task-actions';

describe('taskActions', () => {
  it('offers Follow This Task only while a debug session debugs the run', () => {
    assert.deepEqual(taskActions({ state: 'suspended', phase: 'finished', viewingPast: true, debugged: false }), []);
    assert.deepEqual(taskActions({ state: 'suspended', phase: 'finished', viewingPast: true, debugged: true }), [
      'follow',
    ]);
    assert.deepEqual(taskActions({ state: 'done', phase: 'finished', viewingPast: false, debugged: true }), ['follow']);
  });

  it('keeps Step Task (paused at the present) and Cancel (a live task of the present)', () => {
    assert.deepEqual(taskActions({ state: 'suspended', phase: 'paused', viewingPast: false, debugged: true }), [
      'stepTask',
      'cancel',
      'follow',
    ]);
    assert.deepEqual(taskActions({ state: 'suspended', phase: 'running', viewingPast: false, debugged: false }), [
      'cancel',
    ]);
    assert.deepEqual(taskActions({ state: 'suspended', phase: 'paused', viewingPast: true, debugged: false }), []);
    assert.deepEqual(taskActions({ state: 'done', phase: 'paused', viewingPast: false, debugged: false }), []);
  });
});
