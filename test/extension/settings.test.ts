import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crawlSettings, DEFAULTS, parseCrawlInput, sampleOptions, snapshotRate } from '../../extension/settings';

const from =
  (values: Record<string, unknown>) =>
  (key: string): unknown =>
    values[key];

describe('coroscope.* settings as launch options', () => {
  it('uses the defaults when nothing is set', () => {
    const s = crawlSettings(from({}));
    // Ten workers, the chapter's Crawler, over the demo site's network-like latency.
    // Recorded by default: the timeline and Step Back replay the recording.
    assert.deepEqual(s.options, {
      maxTasks: 10,
      maxRedirect: 10,
      maxTries: 4,
      exclude: null,
      strict: true,
      robots: true,
      inspect: true,
      stopOnEntry: false,
      record: true,
    });
    assert.equal(s.demoPages, 0);
    assert.equal(s.demoLatency, 'realistic');
    assert.deepEqual(s.problems, []);
  });

  it('takes valid values and refuses wrong types and ranges', () => {
    const s = crawlSettings(
      from({
        maxTasks: 20,
        maxRedirect: 0,
        maxTries: 'x',
        exclude: '\\.pdf$',
        strict: false,
        respectRobotsTxt: false,
        inspection: false,
        stopOnEntry: true,
        demoPages: 50,
        record: false,
      }),
    );
    assert.deepEqual(s.options, {
      maxTasks: 20,
      maxRedirect: 0,
      maxTries: DEFAULTS.maxTries,
      exclude: '\\.pdf$',
      strict: false,
      robots: false,
      inspect: false,
      stopOnEntry: true,
      record: false,
    });
    assert.equal(s.demoPages, 50);
    assert.equal(crawlSettings(from({ maxTasks: 0 })).options.maxTasks, 10);
    assert.equal(crawlSettings(from({ maxTasks: 2.5 })).options.maxTasks, 10);
    assert.equal(crawlSettings(from({ demoLatency: 'instant' })).demoLatency, 'instant');
    assert.equal(crawlSettings(from({ demoLatency: 'slow' })).demoLatency, 'realistic');
  });

  it('an invalid exclude pattern is ignored with a warning', () => {
    const s = crawlSettings(from({ exclude: '([' }));
    assert.equal(s.options.exclude, null);
    assert.equal(s.problems.length, 1);
    assert.match(s.problems[0]!, /coroscope\.exclude/);
  });

  it('snapshot rate and sample options', () => {
    assert.equal(snapshotRate(from({})), 4);
    assert.equal(snapshotRate(from({ snapshotRate: 10 })), 10);
    assert.equal(snapshotRate(from({ snapshotRate: 1000 })), 4);
    assert.deepEqual(sampleOptions(from({ inspection: false })), { inspect: false, stopOnEntry: false, record: true });
    assert.equal(crawlSettings(from({ record: 'yes' })).options.record, true);
  });
});

describe('Run Crawl input', () => {
  it('empty (or "demo") means the embedded demo site', () => {
    assert.deepEqual(parseCrawlInput(''), { demo: true });
    assert.deepEqual(parseCrawlInput('  demo '), { demo: true });
  });

  it('takes URLs separated by spaces or commas, adding http:// when missing', () => {
    assert.deepEqual(parseCrawlInput('https://a.example/x, b.example'), {
      demo: false,
      urls: ['https://a.example/x', 'http://b.example/'],
    });
  });

  it('refuses what is not an http(s) URL', () => {
    assert.ok('error' in parseCrawlInput('ftp://x.example/'));
    assert.ok('error' in parseCrawlInput('http://[bad'));
  });
});
