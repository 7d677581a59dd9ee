// The walkthrough in package.json (contributes.walkthroughs): first "crawl, pause, look" (its
// button runs coroscope.crawlStep; it completes on the context key set once the panel showed a
// paused crawl's worker stack), then one step per tutorial sample in the registry's order, each
// with its own explanation file (shipped in the .vsix), a button that runs
// coroscope.openSampleStep with the sample's id, and a completion event on the context key the
// extension sets once that sample has been stepped.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS } from '../../extension/command-ids';
import {
  besideColumn,
  CRAWL_STEP_ID,
  OWN_PROGRAM_STEP_ID,
  sampleIdArg,
  showsPausedWorkerStack,
  steppedContextKey,
  WALKTHROUGH_ID,
  WORKER_STACK_SHOWN_KEY,
} from '../../extension/walkthrough';
import { listSamples } from '../../runtime/samples/index';

const root = join(__dirname, '..', '..');

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string };
  completionEvents: string[];
}

function walkthrough(): { id: string; title: string; steps: Step[] } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    contributes: { walkthroughs: Array<{ id: string; title: string; steps: Step[] }> };
  };
  const w = pkg.contributes.walkthroughs.find((x) => x.id === WALKTHROUGH_ID);
  assert.ok(w !== undefined, 'no coroscope.tutorial walkthrough');
  return w;
}

/** The steps between the first and the last: one per sample. */
function sampleSteps(): Step[] {
  return walkthrough().steps.slice(1, -1);
}

describe('walkthrough', () => {
  it('starts with "crawl, pause, look", then one step per sample, in the registry\'s (the chapter\'s) order, and ends with your own program', () => {
    assert.deepEqual(
      walkthrough().steps.map((s) => s.id),
      [CRAWL_STEP_ID, ...listSamples().map((s) => s.id), OWN_PROGRAM_STEP_ID],
    );
  });

  it('the last step creates a program of your own and says what the debugger shows of it', () => {
    const last = walkthrough().steps.at(-1)!;
    assert.equal(last.title, 'Debug your own program');
    const link = /\[[^\]]+\]\(command:([\w.]+)\)/.exec(last.description);
    assert.equal(link?.[1], COMMANDS.newProgram);
    assert.match(last.description, /"coroscope".*launch configuration.*Look at:.*Deadlock.*coroscope run.*ps\/pstree/s);
    assert.deepEqual(last.completionEvents, [`onCommand:${COMMANDS.newProgram}`]);
    const text = readFileSync(join(root, last.media.markdown!), 'utf8');
    for (const needle of [
      "from 'coroscope'",
      '"program"',
      'New Coroutine Program',
      'Deadlock',
      'coroscope run',
      'coroscope ps PID',
      'pstree',
    ])
      assert.ok(text.includes(needle), needle);
  });

  it("the first step runs the demo crawl, says to pause it and look at a worker, and completes once a worker's stack was shown", () => {
    const first = walkthrough().steps[0]!;
    assert.equal(first.title, 'Crawl, pause, look');
    const link = /\[[^\]]+\]\(command:([\w.]+)\)/.exec(first.description);
    assert.equal(link?.[1], COMMANDS.crawlStep);
    assert.match(first.description, /Look at:.*Pause.*worker/s);
    assert.deepEqual(first.completionEvents, [`onContext:${WORKER_STACK_SHOWN_KEY}`]);
  });

  it("the first step completes on a paused crawl's worker stack only", () => {
    const worker = { task: { name: 'worker-3' }, frames: [{}, {}] };
    assert.equal(showsPausedWorkerStack({ kind: 'demo' }, 'paused', worker), true);
    assert.equal(showsPausedWorkerStack({ kind: 'crawl' }, 'paused', worker), true);
    assert.equal(showsPausedWorkerStack({ kind: 'demo' }, 'running', worker), false, 'not paused');
    assert.equal(showsPausedWorkerStack({ kind: 'sample' }, 'paused', worker), false, "a sample's worker");
    assert.equal(showsPausedWorkerStack(null, 'paused', worker), false);
    assert.equal(
      showsPausedWorkerStack({ kind: 'demo' }, 'paused', { task: { name: 'crawl' }, frames: [{}] }),
      false,
      'not a worker',
    );
    assert.equal(
      showsPausedWorkerStack({ kind: 'demo' }, 'paused', { task: { name: 'worker-1' }, frames: [] }),
      false,
      'no stack to show',
    );
  });

  it('each sample step has a button that opens its sample paused, and says what to look at', () => {
    for (const s of sampleSteps()) {
      const link = /\[[^\]]+\]\(command:([\w.]+)\?([^)]+)\)/.exec(s.description);
      assert.ok(link !== null, `${s.id}: no command link`);
      assert.equal(link[1], COMMANDS.openSampleStep);
      assert.deepEqual(JSON.parse(decodeURIComponent(link[2] ?? '')), [s.id]);
      assert.match(s.description, /Look at:/);
    }
  });

  it('each step explains its sample in a markdown file shipped in the .vsix', () => {
    const ignore = readFileSync(join(root, '.vscodeignore'), 'utf8');
    assert.match(ignore, /^!media\/walkthrough\/\*\.md$/m);
    for (const s of walkthrough().steps) {
      assert.equal(s.media.markdown, `media/walkthrough/${s.id}.md`);
      const text = readFileSync(join(root, s.media.markdown), 'utf8');
      assert.match(text, /^# /, `${s.id}: a heading first`);
      assert.match(text, /## What to look at/, `${s.id}: what to look at`);
    }
  });

  it('each sample step completes on its own context key', () => {
    const keys = new Set<string>();
    for (const s of sampleSteps()) {
      assert.deepEqual(s.completionEvents, [`onContext:${steppedContextKey(s.id)}`]);
      keys.add(steppedContextKey(s.id));
    }
    assert.equal(keys.size, sampleSteps().length, 'the keys are distinct');
  });

  it('makes context keys that are one identifier', () => {
    assert.equal(steppedContextKey('busy-nonblocking'), 'coroscope.stepped.busyNonblocking');
    assert.equal(steppedContextKey('gather-vs-ascompleted'), 'coroscope.stepped.gatherVsAscompleted');
    assert.equal(steppedContextKey('generators'), 'coroscope.stepped.generators');
    for (const s of listSamples()) assert.match(steppedContextKey(s.id), /^coroscope\.stepped\.[A-Za-z0-9]+$/);
  });

  it('declares the step commands, hidden from the palette', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      contributes: {
        commands: Array<{ command: string }>;
        menus: { commandPalette: Array<{ command: string; when: string }> };
      };
    };
    for (const id of [COMMANDS.openSampleStep, COMMANDS.crawlStep]) {
      assert.ok(
        pkg.contributes.commands.some((c) => c.command === id),
        id,
      );
      assert.ok(
        pkg.contributes.menus.commandPalette.some((c) => c.command === id && c.when === 'false'),
        id,
      );
    }
  });

  it("reads the sample id from the link's argument", () => {
    assert.equal(sampleIdArg('crawler'), 'crawler');
    assert.equal(sampleIdArg({ id: 'crawler' }), 'crawler');
    assert.equal(sampleIdArg(''), undefined);
    assert.equal(sampleIdArg(3), undefined);
    assert.equal(sampleIdArg(undefined), undefined);
  });

  it("opens the source beside the walkthrough, never in the panel's column", () => {
    assert.equal(besideColumn(1, undefined), 2);
    assert.equal(besideColumn(1, 2), 3);
    assert.equal(besideColumn(1, 3), 2);
    assert.equal(besideColumn(2, 3), 4);
    assert.equal(besideColumn(undefined, undefined), 2);
  });
});
