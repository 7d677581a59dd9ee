// The ids of Coroscope's commands (extension/command-ids.ts) against what declares and serves them:
// each is contributed in package.json, each has its handler in commands.ts (and no handler serves an id
// that is not one of them), and the ids are distinct; the panel's view type is the one package.json
// activates on.
import './debug/vscode-stub';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { COMMANDS, PANEL_VIEW_TYPE } from '../../extension/command-ids';
import { type CoroscopeServices, commandHandlers } from '../../extension/commands';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  activationEvents: string[];
  contributes: { commands: Array<{ command: string }> };
};

test('each command id is contributed, distinct, and has its handler; no handler for another id', () => {
  const ids = Object.values(COMMANDS);
  const contributed = new Set(pkg.contributes.commands.map((c) => c.command));
  assert.deepEqual(
    ids.filter((id) => !contributed.has(id)),
    [],
  );
  assert.equal(new Set(ids).size, ids.length);
  const handled = Object.keys(commandHandlers(() => ({}) as CoroscopeServices)).sort();
  assert.deepEqual(handled, [...ids].sort());
});

test("the panel's view type is the one package.json activates on", () => {
  assert.ok(pkg.activationEvents.includes(`onWebviewPanel:${PANEL_VIEW_TYPE}`));
});
