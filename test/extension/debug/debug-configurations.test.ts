// Unit tests of the `coroscope` debug configurations: the sample ids offered are the
// runtime's samples; package.json carries the contributions package-contributions.ts makes
// (so `node --import tsx extension/debug/write-contributions.ts` was run after a change);
// every configuration given to users parses as launch arguments.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SAMPLES } from '../../../runtime/samples/index';
import {
  CONFIGURATION_SNIPPETS,
  INITIAL_CONFIGURATIONS,
  KNOWN_SAMPLES,
  debuggerContribution,
  dynamicConfigurations,
  ATTACH_RUN,
  attachConfiguration,
  PICK_RUN_COMMAND,
  newLaunchJsonConfigurations,
  providedConfigurations,
  type CoroscopeConfiguration,
} from '../../../extension/debug/debug-configurations';
import { applyDebugContributions } from '../../../extension/debug/package-contributions';
import { attachRunKey, parseLaunchArguments } from '../../../extension/debug/launch-arguments';

const PACKAGE_JSON = join(__dirname, '..', '..', '..', 'package.json');

describe('coroscope debug configurations', () => {
  it("offer exactly the runtime's tutorial samples", () => {
    assert.deepEqual(
      KNOWN_SAMPLES.map((s) => s.id),
      SAMPLES.map((s) => s.id),
    );
    assert.deepEqual(
      KNOWN_SAMPLES.map((s) => s.title),
      SAMPLES.map((s) => s.title),
    );
  });

  it('are all valid launch arguments', () => {
    for (const c of [...INITIAL_CONFIGURATIONS, ...dynamicConfigurations(true)].filter((x) => x.request === 'launch')) {
      const r = parseLaunchArguments({ ...c, program: c.program === '${file}' ? '/tmp/main.ts' : c.program }, '/tmp');
      assert.ok(!('error' in r), `${c.name}: ${'error' in r ? r.error : ''}`);
    }
    assert.equal(
      dynamicConfigurations(false).some((c) => c.program !== undefined),
      false,
    );
    for (const s of CONFIGURATION_SNIPPETS) assert.equal(s.body.type, 'coroscope');
  });

  it('offer an attach configuration whose run is picked from the live runs, and one per run for "Debug This Run"', () => {
    const attach = dynamicConfigurations(false).filter((c) => c.request === 'attach');
    assert.deepEqual(attach, [ATTACH_RUN]);
    assert.equal(ATTACH_RUN.run, `\${command:${PICK_RUN_COMMAND}}`);
    const snippet = CONFIGURATION_SNIPPETS.find((x) => x.body.request === 'attach');
    assert.equal(snippet?.body.run, `^"\\\${command:${PICK_RUN_COMMAND}}"`);
    assert.deepEqual(attachConfiguration({ key: 3, title: 'Crawl of the demo site' }), {
      type: 'coroscope',
      request: 'attach',
      name: 'Coroscope: run 3, Crawl of the demo site',
      run: 3,
    });
    assert.equal(attachRunKey(attachConfiguration({ key: 3, title: 'x' })), 3);
    assert.equal(attachRunKey({ run: '12' }), 12);
    assert.equal(attachRunKey({}), undefined);
    assert.ok(typeof attachRunKey({ run: 'two' }) === 'object');
  });

  it('are in package.json as package-contributions.ts writes them', () => {
    const text = readFileSync(PACKAGE_JSON, 'utf8');
    const pkg = JSON.parse(text) as Record<string, unknown>;
    const expected = `${JSON.stringify(applyDebugContributions(JSON.parse(text) as Record<string, unknown>), null, 2)}\n`;
    assert.equal(
      text,
      expected,
      'package.json is out of date: run node --import tsx extension/debug/write-contributions.ts',
    );
    const contributes = pkg.contributes as Record<string, unknown>;
    const debuggers = contributes.debuggers as Array<Record<string, unknown>>;
    assert.deepEqual(
      debuggers.find((d) => d.type === 'coroscope'),
      JSON.parse(JSON.stringify(debuggerContribution())),
    );
    assert.ok((pkg.activationEvents as string[]).includes('onDebugResolve:coroscope'));
    assert.ok((pkg.activationEvents as string[]).includes('onDebugDynamicConfigurations:coroscope'));
    // A logpoint hit's link (the extension's URI) reaches its handler, the extension active or not.
    assert.ok((pkg.activationEvents as string[]).includes('onUri'));
  });

  it('"create a launch.json file" writes each configuration once (package.json\'s initial ones, then the provider\'s)', () => {
    const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as {
      contributes: { debuggers: Array<{ type: string; initialConfigurations?: CoroscopeConfiguration[] }> };
    };
    const contributed = pkg.contributes.debuggers.find((d) => d.type === 'coroscope')?.initialConfigurations ?? [];
    for (const activeFileIsModule of [true, false]) {
      const written = newLaunchJsonConfigurations(contributed, providedConfigurations('initial', activeFileIsModule));
      assert.deepEqual(
        written.map((c) => c.name),
        INITIAL_CONFIGURATIONS.map((c) => c.name),
      );
      assert.equal(new Set(written.map((c) => JSON.stringify(c))).size, written.length);
    }
    // The Run and Debug drop-down still lists the dynamic ones.
    assert.deepEqual(providedConfigurations('dynamic', true), dynamicConfigurations(true));
  });

  it("applying the contributions twice changes nothing and keeps others' entries", () => {
    const pkg: Record<string, unknown> = {
      activationEvents: ['onCommand:x'],
      contributes: {
        debuggers: [{ type: 'other' }],
        views: { debug: [{ id: 'other.view', name: 'Other' }] },
        commands: [{ command: 'x', title: 'X' }],
      },
    };
    const once = JSON.stringify(applyDebugContributions(pkg));
    const twice = JSON.stringify(applyDebugContributions(JSON.parse(once) as Record<string, unknown>));
    assert.equal(once, twice);
    const c = (
      JSON.parse(once) as {
        contributes: {
          debuggers: Array<{ type: string }>;
          views: { debug: Array<{ id: string }> };
          commands: Array<{ command: string }>;
        };
      }
    ).contributes;
    assert.deepEqual(
      c.debuggers.map((d) => d.type),
      ['other', 'coroscope'],
    );
    assert.deepEqual(
      c.views.debug.map((v) => v.id),
      ['other.view', 'coroscope.coroutines'],
    );
    assert.equal(c.commands[0]!.command, 'x');
  });
});
