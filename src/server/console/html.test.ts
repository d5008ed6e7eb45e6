import { describe, expect, it } from 'vitest';
import { CSP, esc, html, page } from './html.js';

describe('console HTML', () => {
  it('escapes every substituted value, nested arrays included, and keeps fragments as they are', () => {
    const name = `<script>alert("x")</script>' \``;
    const out = html`<p title="${name}">${name}${[name, html`<b>ok</b>`]}</p>`.html;
    expect(out).not.toContain('<script>');
    expect(out).not.toContain('"x"');
    expect(out).toContain('&#60;script&#62;');
    expect(out).toContain('<b>ok</b>');
    expect(esc(`'"&<>\``)).toBe('&#39;&#34;&#38;&#60;&#62;&#96;');
  });

  it('has no script in a page and a CSP that allows none', () => {
    const text = page({ title: '<t>', user: { id: '<u>', csrf: 'c' } }, html`<p>x</p>`);
    expect(text).not.toMatch(/<script/i);
    expect(text).toContain('&#60;u&#62;');
    expect(CSP).toContain("default-src 'none'");
    expect(CSP).not.toContain('script-src');
    expect(CSP).toContain("frame-ancestors 'none'");
  });
});
