// The debugger's part of package.json, and the read-modify-write that puts it there
// without touching anything else: `contributes.debuggers` (the `coroscope` entry),
// `contributes.breakpoints` (typescript, javascript), the "Coroutines" view in the Run and
// Debug container (`contributes.views.debug`), its commands and menus, and the activation
// events `onDebugResolve:coroscope` / `onDebugDynamicConfigurations:coroscope`.
//
// Invariants: entries owned by others (other debuggers, views, commands, menu items,
// activation events) are kept as they are and in their order; ours are replaced in place
// (or appended), so applying twice changes nothing. Run it with
// `node --import tsx extension/debug/write-contributions.ts`; a unit test checks that
// package.json is up to date.

import { PICK_RUN_COMMAND, debuggerContribution } from './debug-configurations';
import {
  COROUTINES_VIEW_ID,
  FOLLOW_TASK_COMMAND,
  LAST_CHANGE_COMMAND,
  NEXT_CHANGE_COMMAND,
  REFRESH_COMMAND,
  REVEAL_TASK_COMMAND,
} from './coroutines-view-ids';

type Json = Record<string, unknown>;

// onUri: a logpoint hit's link in the Debug Console (debug/logpoint-hit-links.ts) is the extension's URI.
export const ACTIVATION_EVENTS = ['onDebugResolve:coroscope', 'onDebugDynamicConfigurations:coroscope', 'onUri'];

export const COROUTINES_VIEW = { id: COROUTINES_VIEW_ID, name: 'Coroutines', when: 'debugType == coroscope' };

export const DEBUG_COMMANDS = [
  { command: REFRESH_COMMAND, title: 'Refresh Coroutines', category: 'Coroscope', icon: '$(refresh)' },
  {
    command: REVEAL_TASK_COMMAND,
    title: 'Show Where the Task Is Suspended',
    category: 'Coroscope',
    icon: '$(go-to-file)',
  },
  { command: PICK_RUN_COMMAND, title: 'Pick a Run to Debug', category: 'Coroscope' },
  { command: LAST_CHANGE_COMMAND, title: 'Go to Last Change', category: 'Coroscope' },
  { command: NEXT_CHANGE_COMMAND, title: 'Go to Next Change', category: 'Coroscope' },
  { command: FOLLOW_TASK_COMMAND, title: 'Follow This Task', category: 'Coroscope' },
];

export const DEBUG_MENUS: Record<string, Json[]> = {
  'view/title': [{ command: REFRESH_COMMAND, when: `view == ${COROUTINES_VIEW_ID}`, group: 'navigation' }],
  'view/item/context': [
    {
      command: REVEAL_TASK_COMMAND,
      when: `view == ${COROUTINES_VIEW_ID} && viewItem == coroscopeTask`,
      group: 'inline',
    },
  ],
  'debug/variables/context': [
    { command: LAST_CHANGE_COMMAND, when: 'debugType == coroscope', group: 'navigation@90' },
    { command: NEXT_CHANGE_COMMAND, when: 'debugType == coroscope', group: 'navigation@91' },
  ],
  'debug/callstack/context': [
    {
      command: FOLLOW_TASK_COMMAND,
      when: "debugType == coroscope && callStackItemType == 'thread'",
      group: 'navigation',
    },
  ],
  commandPalette: [
    { command: LAST_CHANGE_COMMAND, when: 'false' },
    { command: NEXT_CHANGE_COMMAND, when: 'false' },
    { command: FOLLOW_TASK_COMMAND, when: 'false' },
    { command: REFRESH_COMMAND, when: 'debugType == coroscope' },
    { command: REVEAL_TASK_COMMAND, when: 'false' },
    // Used by attach configurations (`${command:coroscope.pickRun}`); "Debug This Run" is the palette's way.
    { command: PICK_RUN_COMMAND, when: 'false' },
  ],
};

function object(parent: Json, key: string): Json {
  const v = parent[key];
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Json;
  const fresh: Json = {};
  parent[key] = fresh;
  return fresh;
}

function array(parent: Json, key: string): unknown[] {
  const v = parent[key];
  if (Array.isArray(v)) return v as unknown[];
  const fresh: unknown[] = [];
  parent[key] = fresh;
  return fresh;
}

/** Replaces the entry `same` finds (in place), or appends. */
function upsert(list: unknown[], entry: unknown, same: (x: Json) => boolean): void {
  const i = list.findIndex((x) => typeof x === 'object' && x !== null && same(x as Json));
  if (i >= 0) list[i] = entry;
  else list.push(entry);
}

/** Applies the debugger's contributions to a parsed package.json (mutates and returns it). */
export function applyDebugContributions(pkg: Json): Json {
  const activation = array(pkg, 'activationEvents');
  for (const e of ACTIVATION_EVENTS) if (!activation.includes(e)) activation.push(e);
  const contributes = object(pkg, 'contributes');
  upsert(
    array(contributes, 'debuggers'),
    JSON.parse(JSON.stringify(debuggerContribution())) as Json,
    (x) => x.type === 'coroscope',
  );
  const breakpoints = array(contributes, 'breakpoints');
  for (const language of ['typescript', 'javascript'])
    upsert(breakpoints, { language }, (x) => x.language === language);
  upsert(array(object(contributes, 'views'), 'debug'), { ...COROUTINES_VIEW }, (x) => x.id === COROUTINES_VIEW_ID);
  const commands = array(contributes, 'commands');
  for (const c of DEBUG_COMMANDS) upsert(commands, { ...c }, (x) => x.command === c.command);
  const menus = object(contributes, 'menus');
  for (const [where, items] of Object.entries(DEBUG_MENUS)) {
    const list = array(menus, where);
    for (const item of items) upsert(list, { ...item }, (x) => x.command === item.command);
  }
  return pkg;
}
