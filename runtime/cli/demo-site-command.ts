// `coroscope demo-site`: serves the embedded demo website until interrupted.

import { startDemoSite } from '../demo-site/index';
import type { DemoSiteCommand } from './args';

export async function runDemoSiteCommand(cmd: DemoSiteCommand): Promise<number> {
  let site;
  try {
    site = await startDemoSite({ port: cmd.port, pages: cmd.pages, latencyMs: cmd.latencyMs, faults: cmd.faults });
  } catch (e) {
    const code = (e as { code?: string }).code;
    process.stderr.write(
      `coroscope demo-site: cannot listen on port ${cmd.port}: ${code === 'EADDRINUSE' ? 'the port is in use' : (e as Error).message}\n`,
    );
    return 1;
  }
  process.stdout.write(`Demo site with ${cmd.pages} pages at ${site.url} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await site.close();
  return 0;
}
