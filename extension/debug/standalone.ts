// The `coroscope` debug adapter as a program (bundled to dist/debugAdapter.js): the same
// CoroscopeSession the extension runs inline, speaking DAP over stdin/stdout, so that any
// DAP client (and the adapter tests) can drive it: `node dist/debugAdapter.js`.
//
// It owns its runs: a RunRegistry of its own starts the runtime host (dist/runtime-host.js
// next to this file; COROSCOPE_HOST_SCRIPT overrides it), so `attach` finds no run here. stdout is the
// protocol channel: console output goes to stderr. The process
// exits once the client disconnects or closes stdin (after ending the runtime host), or on
// SIGTERM.

import { join } from 'node:path';
import { RunRegistry } from '../runs/run-registry';
import { CoroscopeSession } from './coroscope-session';

// Anything printed on stdout would corrupt the DAP stream.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

const hostScript = process.env.COROSCOPE_HOST_SCRIPT ?? join(__dirname, 'runtime-host.js');
const runs = new RunRegistry({ hostScript, clientName: 'coroscope-debug-adapter (stdio)' });
const session = new CoroscopeSession({ hostScript, runs });
process.on('SIGTERM', () => session.shutdown());
session.start(process.stdin, process.stdout);
