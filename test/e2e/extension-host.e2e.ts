/**
 * The extension's in-host test suite (test/e2e/electron/suite.ts, the one @vscode/test-electron
 * runs in VS Code desktop) run here in code-server instead: VS Code web's `payload` URL
 * parameter loads this folder as the extension under development and runs the bundled suite
 * in the (Node) extension host, which exits with 0 when run() resolves.
 *
 * Run: node --import tsx --test test/e2e/extension-host.e2e.ts   (after `npm run build`)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { bundleSuite } from './electron/run';
import { launchBrowser, runExtensionTests } from './support/browser';
import { developmentUrl, startCodeServer, type CodeServer } from './support/code-server';

const projectRoot = resolve(__dirname, '..', '..');

describe('extension tests in the extension host (code-server)', { timeout: 180_000 }, () => {
  let workspace = '';
  let server: CodeServer | undefined;
  let browser: Browser | undefined;

  before(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'coroscope-e2e-host-'));
    writeFileSync(join(workspace, 'README.md'), '# extension host tests\n');
    server = await startCodeServer({ workspace });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    if (workspace !== '') rmSync(workspace, { recursive: true, force: true });
  });

  it('runs the suite against the real vscode API and passes', async () => {
    assert.ok(server && browser);
    const suite = await bundleSuite();
    const url = developmentUrl(server, { extensionDevelopmentPath: projectRoot, extensionTestsPath: suite });
    const result = await runExtensionTests(browser, url, 150_000);
    const lines = result.log.filter((l) => /ok - |not ok - |coroscope/i.test(l));
    console.log(lines.join('\n'));
    assert.equal(result.exitCode, 0, result.log.join('\n'));
    assert.ok(lines.some((l) => l.includes('ok - Open Tutorial Sample')), 'the last test ran');
  });
});
