// Whether a test against a real server or peer (nginx, the Python 3.11 docs, aiohttp: Debian
// packages) may skip because its package is missing. Locally it skips, naming what to install.
// Where COROSCOPE_REAL_SERVERS=required (.ci/run sets it once it has installed them) it never
// skips: the test runs and a missing package fails it, so CI cannot pass by skipping them.

export const REAL_SERVERS_REQUIRED = 'COROSCOPE_REAL_SERVERS';

/** The test's `skip` option: false when installed or required, else why it skips. */
export function skipUnlessInstalled(
  installed: boolean,
  missing: string,
  env: NodeJS.ProcessEnv = process.env,
): string | false {
  if (installed || env[REAL_SERVERS_REQUIRED] === 'required') return false;
  return missing;
}
