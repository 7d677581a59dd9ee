// Tests of the debugger's part of package.json (extension/debug/package-contributions.ts) applied to
// made-up manifests: an empty one gets every key it owns; in a full one, others' entries (debuggers,
// breakpoints, views, commands, menu items, activation events) are kept as they are and where they are,
// ours replaced in place or appended; applying twice changes nothing. (That the real package.json is up to
// date: debug-configurations.test.ts.)

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { debuggerContribution } from '../../../extension/debug/debug-configurations';
import {
  ACTIVATION_EVENTS,
  applyDebugContributions,
  COROUTINES_VIEW,
  DEBUG_COMMANDS,
  DEBUG_MENUS,
} from '../../../extension/debug/package-contributions';

type Json = Record<string, unknown>;
const clone = (x: Json): Json => JSON.parse(JSON.stringify(x)) as Json;
const ours = clone(debuggerContribution() as unknown as Json);

describe('applyDebugContributions', () => {
  test('an empty manifest gets every key it owns, and only those', () => {
    const pkg = applyDebugContributions({});
    assert.deepEqual(pkg, {
      activationEvents: ACTIVATION_EVENTS,
      contributes: {
        debuggers: [ours],
        breakpoints: [{ language: 'typescript' }, { language: 'javascript' }],
        views: { debug: [COROUTINES_VIEW] },
        commands: DEBUG_COMMANDS,
        menus: DEBUG_MENUS,
      },
    });
  });

  test("others' entries kept where they are; ours replaced in place; twice is once", () => {
    const mine = { command: DEBUG_COMMANDS[0]!.command, title: 'an old title' };
    const manifest: Json = {
      name: 'coroscope',
      activationEvents: ['onStartupFinished', ACTIVATION_EVENTS[1]],
      contributes: {
        debuggers: [
          { type: 'node', label: 'Node' },
          { type: 'coroscope', label: 'old' },
        ],
        breakpoints: [{ language: 'python' }, { language: 'javascript', extra: true }],
        views: { explorer: [{ id: 'other' }], debug: [{ id: 'someone.view' }] },
        commands: [{ command: 'other.do' }, mine],
        menus: { 'view/title': [{ command: 'other.do', when: 'true' }], 'editor/title': [{ command: 'x' }] },
        configuration: { title: 'Coroscope' },
      },
    };
    const once = applyDebugContributions(clone(manifest));
    const contributes = once.contributes as Json;
    assert.deepEqual(once.name, 'coroscope');
    assert.deepEqual(once.activationEvents, [
      'onStartupFinished',
      ACTIVATION_EVENTS[1],
      ACTIVATION_EVENTS[0],
      ACTIVATION_EVENTS[2],
    ]);
    assert.deepEqual(contributes.debuggers, [{ type: 'node', label: 'Node' }, ours]);
    assert.deepEqual(contributes.breakpoints, [
      { language: 'python' },
      { language: 'javascript' },
      { language: 'typescript' },
    ]);
    assert.deepEqual(contributes.views, {
      explorer: [{ id: 'other' }],
      debug: [{ id: 'someone.view' }, COROUTINES_VIEW],
    });
    assert.deepEqual(contributes.commands, [{ command: 'other.do' }, ...DEBUG_COMMANDS]);
    const menus = contributes.menus as Record<string, unknown[]>;
    assert.deepEqual(menus['view/title'], [
      { command: 'other.do', when: 'true' },
      ...(DEBUG_MENUS['view/title'] ?? []),
    ]);
    assert.deepEqual(menus['editor/title'], [{ command: 'x' }]);
    assert.deepEqual(contributes.configuration, { title: 'Coroscope' });
    assert.deepEqual(applyDebugContributions(clone(once)), once);
  });
});
