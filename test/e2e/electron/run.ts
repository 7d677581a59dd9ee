/**
 * The extension's tests in VS Code desktop through @vscode/test-electron: it downloads a
 * VS Code build (not possible on machines without access to its download site, so this is
 * not part of CI, which runs the same suite in code-server instead), bundles suite.ts and
 * runs it in the extension host with this folder as the extension under development.
 *
 * Run: npm run test:electron   (VSCODE_VERSION=stable|insiders|1.x.y to choose the build)
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runTests } from '@vscode/test-electron';

const projectRoot = resolve(__dirname, '..', '..', '..');

export async function bundleSuite(): Promise<string> {
  const out = join(projectRoot, 'dist', 'test', 'electron-suite.js');
  await build({
    entryPoints: [join(__dirname, 'suite.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    sourcemap: true,
    logLevel: 'warning',
  });
  return out;
}

async function main(): Promise<void> {
  const extensionTestsPath = await bundleSuite();
  const workspace = mkdtempSync(join(tmpdir(), 'coroscope-electron-'));
  writeFileSync(join(workspace, 'README.md'), '# Coroscope extension tests\n');
  try {
    await runTests({
      version: process.env.VSCODE_VERSION ?? 'stable',
      extensionDevelopmentPath: projectRoot,
      extensionTestsPath,
      launchArgs: [
        workspace,
        '--disable-extensions',
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
      ],
    });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(`extension tests failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
