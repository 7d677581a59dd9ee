/**
 * The extension's in-host test suite (test/e2e/electron/suite.ts, the one @vscode/test-electron
 * runs in VS Code desktop) run here in code-server instead: VS Code web's `payload` URL
 * parameter loads this folder as the extension under development and runs the bundled suite
 * in the (Node) extension host, which exits with 0 when run() resolves.
 *
 * Run: node --import tsx --test test/e2e/extension-host.e2e.ts   (after `npm run build`)
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { bundleSuite } from './electron/run';
import { runExtensionTests } from './support/browser';
import { developmentUrl } from './support/code-server';
import { useWorkbenchSuite } from './support/workbench-suite';

const projectRoot = resolve(__dirname, '..', '..');

describe('extension tests in the extension host (code-server)', { timeout: 180_000 }, () => {
  // No workbench of its own: the tests' page is opened by runExtensionTests.
  const suite = useWorkbenchSuite({
    name: 'host',
    files: { 'README.md': '# extension host tests\n' },
    openWorkbench: false,
  });

  it('runs the suite against the real vscode API and passes', async () => {
    const tests = await bundleSuite();
    const url = developmentUrl(suite.server(), { extensionDevelopmentPath: projectRoot, extensionTestsPath: tests });
    const result = await runExtensionTests(suite.browser(), url, 150_000);
    const lines = result.log.filter((l) => /ok - |not ok - |coroscope/i.test(l));
    console.log(lines.join('\n'));
    assert.equal(result.exitCode, 0, result.log.join('\n'));
    assert.ok(
      lines.some((l) => l.includes('ok - Open Tutorial Sample')),
      'the last test ran',
    );
  });
});
