// Tests of protocol/crawl-option-bounds.ts: the check's messages, and that package.json's
// settings schema states the same bounds (VS Code reads those before any code runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CRAWL_OPTION_BOUNDS, crawlOptionProblem } from '../../protocol/crawl-option-bounds';

test('values inside the bounds pass; outside, non-integers and non-numbers are named with the bounds', () => {
  assert.equal(crawlOptionProblem('maxTasks', 1), null);
  assert.equal(crawlOptionProblem('maxTasks', 10_000), null);
  assert.equal(crawlOptionProblem('timeout', 2.5), null);
  assert.equal(
    crawlOptionProblem('maxTasks', 1e30, '--max-tasks'),
    '--max-tasks must be a whole number from 1 to 10000, got 1e+30',
  );
  assert.equal(crawlOptionProblem('maxTasks', 0), 'maxTasks must be a whole number from 1 to 10000, got 0');
  assert.equal(crawlOptionProblem('maxTries', 2.5), 'maxTries must be a whole number from 1 to 100, got 2.5');
  assert.equal(crawlOptionProblem('timeout', Infinity), 'timeout must be a number from 0.001 to 86400, got Infinity');
  assert.equal(crawlOptionProblem('maxDepth', '3'), 'maxDepth must be a whole number from 0 to 10000, got "3"');
  assert.equal(crawlOptionProblem('maxRedirect', NaN), 'maxRedirect must be a whole number from 0 to 100, got NaN');
});

test("package.json's settings and launch attributes state the documented bounds", () => {
  const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    contributes: {
      configuration: Array<{ properties: Record<string, { minimum?: number; maximum?: number }> }>;
      debuggers: Array<{
        type: string;
        configurationAttributes: { launch: { properties: Record<string, { minimum?: number; maximum?: number }> } };
      }>;
    };
  };
  const settings = pkg.contributes.configuration[0]!.properties;
  const launch = pkg.contributes.debuggers.find((d) => d.type === 'coroscope')!.configurationAttributes.launch
    .properties;
  for (const name of ['maxTasks', 'maxRedirect', 'maxTries'] as const) {
    const { min, max } = CRAWL_OPTION_BOUNDS[name];
    assert.deepEqual(
      [settings[`coroscope.${name}`]!.minimum, settings[`coroscope.${name}`]!.maximum],
      [min, max],
      `setting coroscope.${name}`,
    );
    assert.deepEqual([launch[name]!.minimum, launch[name]!.maximum], [min, max], `launch attribute ${name}`);
  }
  assert.deepEqual(
    [launch.pages!.minimum, launch.pages!.maximum],
    [CRAWL_OPTION_BOUNDS.demoPages.min, CRAWL_OPTION_BOUNDS.demoPages.max],
  );
  assert.equal(settings['coroscope.demoPages']!.maximum, CRAWL_OPTION_BOUNDS.demoPages.max);
});
