// Tests of bench/sites/nginx-site.ts where Debian's nginx-light and python3.11-doc are
// installed (skipped elsewhere): nginx runs from a configuration in a temp directory on a
// loopback port, serves the Python documentation with keep-alive and gzip, counts the
// connections that served requests from its access log, and is gone with its directory after
// close().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import http from 'node:http';
import * as zlib from 'node:zlib';
import { nginxAvailable, startNginxSite } from '../../bench/sites/nginx-site';
import { skipUnlessInstalled } from '../real-servers';

function get(url: string, agent: http.Agent): Promise<{ res: http.IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ res, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

test('nginx serves the Python docs with keep-alive and gzip, counts connections, and cleans up', {
  skip: skipUnlessInstalled(nginxAvailable(), 'nginx-light or python3.11-doc not installed'),
}, async () => {
  const site = await startNginxSite();
  assert.ok(fs.existsSync(`${site.directory}/nginx.conf`));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const mark = site.logMark();
    const first = await get(site.url, agent);
    const second = await get(site.url.replace('index.html', 'contents.html'), agent);
    assert.equal(first.res.statusCode, 200);
    assert.equal(first.res.headers['content-encoding'], 'gzip');
    assert.equal(first.res.headers.connection, 'keep-alive');
    assert.match(zlib.gunzipSync(first.body).toString('utf8'), /<title>/);
    assert.equal(second.res.statusCode, 200);
    await new Promise((r) => setTimeout(r, 300)); // the access log is flushed every 100 ms
    assert.deepEqual(site.connectionsSince(mark), { connections: 1, requests: 2 });
  } finally {
    agent.destroy();
    await site.close();
  }
  assert.equal(fs.existsSync(site.directory), false, 'its temp directory is removed');
  await assert.rejects(get(site.url, new http.Agent()), 'nginx is stopped');
});
