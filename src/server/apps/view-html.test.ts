import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { extAppsBundle, viewHtml, ViewFilesError } from './view-html.js';

const hash = (text: string) => `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;

describe('the run_script view page', () => {
  it('turns the bundle’s export list into a scoped ExtApps object', () => {
    const out = extAppsBundle('var a=1,c=2;class B{}export{a as one,B as App,c};\n');
    expect(out).toBe('const ExtApps = (() => {\nvar a=1,c=2;class B{}\nreturn {"one": a, "App": B, "c": c};\n})();');
    expect(new Function(`${out}; return ExtApps.one;`)()).toBe(1);
  });

  it('refuses a bundle whose shape changed rather than inlining something broken', () => {
    expect(() => extAppsBundle('export{a};var b;')).toThrow(ViewFilesError);
    expect(() => extAppsBundle('export{a};export{b};')).toThrow(/single export list/);
  });

  it('allows exactly its own inline script and style, and keeps the config a data block', () => {
    const html = viewHtml({ version: '1.2.3', consoleUrl: 'https://h/console</script><script>alert(1)</script>' });
    const script = /<script type="module">([\s\S]*)<\/script>/.exec(html)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(csp).toBe(`default-src 'none'; script-src '${hash(script)}'; style-src '${hash(style)}'; img-src data:; base-uri 'none'; form-action 'none'`);
    expect(script).toContain('const ExtApps = (() => {');
    expect(html.match(/<script/g)).toHaveLength(2);
    const data = /<script type="application\/json" id="pve-view-config">(.*)<\/script>/.exec(html)?.[1] ?? '';
    expect(data).not.toContain('<');
    expect(JSON.parse(data)).toEqual({ version: '1.2.3', consoleUrl: 'https://h/console</script><script>alert(1)</script>' });
  });
});
