/**
 * The reading of the Android wallet's inline styles for the CSP (src/server/http/mobile-wallet-styles.ts): the
 * package as installed, and the shapes it refuses rather than hashing the wrong text.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  inlineStylesOf,
  mobileWalletBrowserSource,
  withoutWebFonts,
} from '../../src/server/http/mobile-wallet-styles';

const MODULE = `
const css$1 = \`.card { border-radius: 24px; }\`;
const css$2 = \`.title { font-weight: 600; }\`;
const html = \`<div data-modal-close style="position: absolute;"></div><mask style="mask-type:alpha"></mask>\`;
const fonts = \`<link href="https://fonts.googleapis.com/css2?family=Inter+Tight" rel="stylesheet">\`;
var Modal = class {
  inject() {
    const styles = document.createElement("style");
    styles.textContent = css$1 + this.contentStyles;
    const host = document.createElement("div");
    host.innerHTML = fonts;
  }
};
var Screen = class extends Modal { contentStyles = css$2; };
`;

describe('the Mobile Wallet Adapter inline styles', () => {
  it('reads each <style> text as the library assembles it, and each style attribute', () => {
    expect(inlineStylesOf(MODULE)).toEqual({
      elements: ['.card { border-radius: 24px; }.title { font-weight: 600; }'],
      attributes: ['position: absolute;', 'mask-type:alpha'],
    });
  });

  it('reads the installed package: its screens share one modal style, each with its own, and a spinner', () => {
    const { elements, attributes } = inlineStylesOf(mobileWalletBrowserSource());
    expect(elements).toHaveLength(6);
    expect(elements.filter((e) => e.includes('.mobile-wallet-adapter-embedded-modal-card {'))).toHaveLength(
      5,
    );
    expect(elements.filter((e) => e.includes('@keyframes dot-typing'))).toHaveLength(1);
    expect(attributes).toEqual(['position: absolute; width: 100%; height: 100%;', 'mask-type:alpha']);
    for (const e of elements) expect(createHash('sha256').update(e).digest('base64')).toHaveLength(44);
  });

  it('refuses a style text it cannot know before run time, or styles set another way', () => {
    expect(() => inlineStylesOf(MODULE.replace('24px', '${radius}'))).toThrow(/built at run time/);
    expect(() => inlineStylesOf(MODULE.replace('css$1 +', 'makeCss() +'))).toThrow(/not a constant/);
    expect(() => inlineStylesOf(`${MODULE}el.setAttribute("style", s);`)).toThrow(/setAttribute/);
    expect(() =>
      inlineStylesOf(MODULE.replace('contentStyles = css$2;', 'get contentStyles() { return css$2; }')),
    ).toThrow(/contentStyles/);
    expect(() => inlineStylesOf(`${MODULE}shadow.append(document.createElement("style"));`)).toThrow(
      /created in a way not read here/,
    );
  });

  it('drops the Google Fonts links from the web build, and says so when they move', () => {
    expect(withoutWebFonts(MODULE)).not.toMatch(/host\.innerHTML/);
    expect(() => withoutWebFonts(MODULE.replace('host.innerHTML = fonts;', 'host.append(fonts);'))).toThrow(
      /Google Fonts/,
    );
  });
});
