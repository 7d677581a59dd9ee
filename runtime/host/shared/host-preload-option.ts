// Loaded by a runtime host's line debugger worker and by the CLI, which fork runtime hosts (line replay
// hosts): the node options that load the host's preload ahead of its bundle (host-preload.ts), which
// starts the host's worker meanwhile. The extension forks its host alike (host-process.ts).
//
// Invariants: the preload is named once however often the options pass on (a host's worker forks with
// the host's own options); where the preload is not beside the host script (a host run from its
// TypeScript sources), the options are unchanged and the host starts its worker itself.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HOST_PRELOAD_FILE } from '../../../protocol/host-protocol';

/** `execArgv` with the preload of host script `script` loaded first, where it is there. */
export function withHostPreload(script: string, execArgv: readonly string[]): string[] {
  const preload = join(dirname(script), HOST_PRELOAD_FILE);
  if (!existsSync(preload) || execArgv.some((a, i) => a === preload && execArgv[i - 1] === '--require'))
    return [...execArgv];
  return ['--require', preload, ...execArgv];
}
