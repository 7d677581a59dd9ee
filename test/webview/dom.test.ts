// The panel's DOM building (webview/dom.ts): strings become text, never markup; attributes that
// would run code or inline styles are refused; listeners are attached; SVG is in its namespace.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { h, iconButton, replace, svg, svgText } from '../../webview/dom';
import { closeDom, openDom } from './dom-env';

beforeEach(() => openDom());
afterEach(() => closeDom());

describe('dom building', () => {
  it('makes text of every string child, so markup from a page stays characters', () => {
    const el = h(
      'div',
      { class: 'row', title: '<t>' },
      '<img src=x onerror=alert(1)>',
      42,
      null,
      false,
      h('b', null, 'ok'),
    );
    assert.equal(el.querySelector('img'), null);
    assert.deepEqual(
      [...el.childNodes].map((n) => [n.nodeType, n.textContent]),
      [
        [3, '<img src=x onerror=alert(1)>'],
        [3, '42'],
        [1, 'ok'],
      ],
    );
    assert.equal(el.className, 'row');
    assert.equal(el.title, '<t>');
  });

  it('refuses event-handler, style and srcdoc attributes, in HTML and in SVG', () => {
    assert.throws(() => h('div', { attrs: { onclick: 'x()' } }), /refused attribute onclick/);
    assert.throws(() => h('div', { attrs: { STYLE: 'color:red' } }), /refused attribute STYLE/);
    assert.throws(() => h('iframe', { attrs: { srcdoc: '<p>' } }), /refused attribute srcdoc/);
    assert.throws(() => svg('g', { onload: 'x()' }), /refused attribute onload/);
    assert.equal(h('a', { attrs: { href: '#', 'data-task': '3' } }).getAttribute('data-task'), '3');
  });

  it('attaches the listeners given', () => {
    let clicks = 0;
    const b = h('button', { on: { click: () => clicks++ } });
    b.click();
    b.click();
    assert.equal(clicks, 2);
  });

  it('builds SVG elements in the SVG namespace, their text as text', () => {
    const t = svgText('<script>', { x: 3 });
    const root = svg('svg', { viewBox: '0 0 10 10' }, t);
    assert.equal(root.namespaceURI, 'http://www.w3.org/2000/svg');
    assert.equal(t.namespaceURI, 'http://www.w3.org/2000/svg');
    assert.equal(t.getAttribute('x'), '3');
    assert.equal(root.querySelector('script'), null);
    assert.equal(t.textContent, '<script>');
  });

  it('replaces the children of an element', () => {
    const el = h('div', null, 'a', h('span', null, 'b'));
    replace(el, 'c');
    assert.equal(el.childNodes.length, 1);
    assert.equal(el.textContent, 'c');
  });

  it('makes an icon button with its label for assistive technology, its action id and its click', () => {
    let pressed = 0;
    const b = iconButton('play', 'Run a crawl', () => pressed++, { text: 'Run', id: 'run-crawl', primary: true });
    assert.equal(b.getAttribute('aria-label'), 'Run a crawl');
    assert.equal(b.dataset.action, 'run-crawl');
    assert.equal(b.getAttribute('type'), 'button');
    assert.deepEqual([...b.classList], ['icon-button', 'with-text', 'primary']);
    assert.equal(b.querySelector('.button-text')?.textContent, 'Run');
    b.click();
    assert.equal(pressed, 1);
  });
});
