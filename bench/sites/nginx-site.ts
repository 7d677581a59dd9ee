// A benchmark site this project did not write: nginx (Debian's nginx-light) serving a folder
// of real HTML, by default the Python 3.11 documentation of Debian's python3.11-doc (about
// 530 pages of 20-200 KB), on a loopback port with keep-alive and gzip.
//
// Invariants:
// - Never touches the system's nginx: the configuration, pid file, logs and temp folders all
//   live in a fresh temp directory that this module writes and removes; nginx runs in the
//   foreground as our child process, with one worker (one core, as the node:http sites).
// - Counts TCP connections: the access log records nginx's connection serial number per
//   request, so connectionsSince(mark) tells how many distinct connections served the
//   requests logged after `mark` (a byte offset of the log, from logMark()).
// - close() stops nginx (SIGQUIT, then SIGKILL) and removes the temp directory.
//
// Standalone: node --import tsx bench/sites/nginx-site.ts [--root DIR]
// prints the start URL and serves until SIGINT or SIGTERM.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const NGINX_BINARY = '/usr/sbin/nginx';
export const PYTHON_DOCS = '/usr/share/doc/python3.11/html';

export interface NginxSite {
  /** The start URL: the root folder's index.html. */
  url: string;
  /** The temp directory holding its configuration, logs and pid file (removed by close()). */
  directory: string;
  /** The current end of the access log, to count connections from. */
  logMark(): number;
  /** Distinct connections that served the requests logged after `mark`, and those requests. */
  connectionsSince(mark: number): { connections: number; requests: number };
  close(): Promise<void>;
}

/** Whether nginx and the document folder are installed (else the nginx site is skipped). */
export function nginxAvailable(root = PYTHON_DOCS): boolean {
  return fs.existsSync(NGINX_BINARY) && fs.existsSync(path.join(root, 'index.html'));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function configText(dir: string, port: number, root: string): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  log_format conn '$connection $status';
  access_log ${dir}/access.log conn buffer=64k flush=100ms;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_timeout 65;
  keepalive_requests 100000;
  gzip on;
  gzip_comp_level 5;
  gzip_types text/plain text/css application/javascript application/json image/svg+xml;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
  }
}
`;
}

async function waitForPort(port: number, child: ChildProcess, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`nginx did not listen on ${port} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startNginxSite(root = PYTHON_DOCS): Promise<NginxSite> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coroscope-nginx-'));
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, configText(dir, port, path.resolve(root)));
  const check = spawnSync(NGINX_BINARY, ['-t', '-q', '-p', dir, '-c', conf], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx rejects the configuration: ${check.stderr}`);
  const child = spawn(NGINX_BINARY, ['-p', dir, '-c', conf], { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(port, child, 5000);
  const log = path.join(dir, 'access.log');
  const logSize = (): number => (fs.existsSync(log) ? fs.statSync(log).size : 0);
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/index.html`,
    directory: dir,
    logMark: logSize,
    connectionsSince(mark: number) {
      // The log is flushed every 100 ms; SIGUSR1 would reopen it, so wait out the flush instead.
      const text = fs.readFileSync(log, 'latin1').slice(mark);
      const serials = new Set<string>();
      let requests = 0;
      for (const line of text.split('\n')) {
        if (line === '') continue;
        requests++;
        serials.add(line.slice(0, line.indexOf(' ')));
      }
      return { connections: serials.size, requests };
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(kill);
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
        if (child.exitCode !== null) done();
        else {
          child.once('exit', done);
          child.kill('SIGQUIT');
        }
      });
      return closing;
    },
  };
}

async function main(argv: readonly string[]): Promise<void> {
  const at = argv.indexOf('--root');
  const site = await startNginxSite(at >= 0 ? argv[at + 1] : PYTHON_DOCS);
  process.stdout.write(`${site.url}\n`);
  const stop = (): void => {
    void site.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (/(^|[\\/])nginx-site\.[cm]?[jt]s$/.test(process.argv[1] ?? '')) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
