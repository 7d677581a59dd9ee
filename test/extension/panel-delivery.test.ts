// PanelDelivery's transitions, as VS Code's view-state events and the page's `ready` come: events go
// only to a current page; a page answered or posted to while hidden is resynced once shown, once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PanelDelivery } from '../../extension/panel-delivery';

test('a page loading gets no events and is never resynced: it asks ready itself', () => {
  const d = new PanelDelivery();
  assert.equal(d.deliverable, false);
  assert.equal(d.booted, false);
  d.hidden();
  assert.equal(d.shown(), false);
  assert.equal(d.state.kind, 'loading');
});

test('answered while shown: current; hidden then shown: resynced once, then current', () => {
  const d = new PanelDelivery();
  d.answered(true);
  assert.equal(d.deliverable, true);
  d.hidden();
  assert.equal(d.deliverable, false);
  assert.equal(d.booted, true);
  assert.equal(d.shown(), true);
  assert.equal(d.deliverable, true);
  assert.equal(d.shown(), false, 'a second show without a hide resyncs nothing');
});

test('answered while hidden (the answer may be dropped): resynced when shown', () => {
  const d = new PanelDelivery();
  d.answered(false);
  assert.deepEqual(d.state, { kind: 'missed' });
  assert.equal(d.deliverable, false);
  assert.equal(d.shown(), true);
  assert.equal(d.deliverable, true);
});

test('HTML set anew: loading again, whatever it was', () => {
  const d = new PanelDelivery();
  d.answered(true);
  d.loading();
  assert.equal(d.booted, false);
  assert.equal(d.shown(), false);
});
