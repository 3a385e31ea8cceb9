/**
 * The catalogue's tiles line up: in every row of a vendor's grid the tiles are one height, their pictures start
 * together and their prices sit on one line, whatever the length of the names (a long name took 24 px more on a
 * phone, where the name and price show under the picture). At 390 px on a touch phone (two columns), at 1280 px
 * with a mouse (the name on hover) and at 1280 px on a touch screen (the name under the picture). Screenshots go
 * to test-results/screens/.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/web/catalog';
import { unexpectedErrors } from '../support/browser';
import { browserSuite } from '../support/browser-suite';

const suite = browserSuite();
const SCREENS = resolve(import.meta.dirname, '../../test-results/screens');

interface TileBox {
  product: string;
  top: number;
  bottom: number;
  imgTop: number;
  priceBottom: number;
  nameLines: number;
  /** The picture stays square, and the name (on a touch screen) starts under it. */
  imgSquare: boolean;
  infoBelowImg: boolean;
}

/** Every tile of the grid, grouped into rows by where they start. */
async function rowsOf(page: Page): Promise<TileBox[][]> {
  const tiles = await page.locator('.product-grid .tile').evaluateAll((els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      const name = el.querySelector<HTMLElement>('.tile-name')!;
      const lineHeight = parseFloat(getComputedStyle(name).lineHeight);
      const img = el.querySelector('img')!.getBoundingClientRect();
      const info = el.querySelector('.tile-info')!.getBoundingClientRect();
      return {
        product: el.getAttribute('data-product') ?? '',
        top: Math.round(r.top + window.scrollY),
        bottom: Math.round(r.bottom + window.scrollY),
        imgTop: Math.round(el.querySelector('img')!.getBoundingClientRect().top + window.scrollY),
        priceBottom: Math.round(
          el.querySelector('.tile-price')!.getBoundingClientRect().bottom + window.scrollY,
        ),
        nameLines: Math.round(name.getBoundingClientRect().height / lineHeight),
        imgSquare: Math.abs(img.width - img.height) <= 1,
        infoBelowImg: info.top >= img.bottom - 1,
      };
    }),
  );
  const rows = new Map<number, TileBox[]>();
  for (const t of tiles) rows.set(t.imgTop, [...(rows.get(t.imgTop) ?? []), t]);
  return [...rows.values()];
}

const spread = (values: number[]) => Math.max(...values) - Math.min(...values);

describe('catalogue tiles line up', () => {
  const cases: [string, BrowserContextOptions, number][] = [
    ['390-touch', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }, 2],
    ['1280-mouse', { viewport: { width: 1280, height: 900 } }, 5],
    ['1280-touch', { viewport: { width: 1280, height: 900 }, hasTouch: true, isMobile: true }, 5],
  ];
  it.each(cases)(
    'at %s every row of tiles is one height, prices on one line',
    async (name, options, columns) => {
      mkdirSync(SCREENS, { recursive: true });
      const { page, errors, close } = await suite.open(options);
      let longNames = 0;
      for (const vendor of catalog.vendors) {
        await page.goto(`/vendors/${vendor.id}`);
        await page.locator('.product-grid .tile').first().waitFor();
        await page.waitForLoadState('networkidle');
        const rows = await rowsOf(page);
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
          expect(row.length, JSON.stringify(row)).toBeLessThanOrEqual(columns);
          const what = `${vendor.id} ${name}: ${JSON.stringify(row)}`;
          expect(spread(row.map((t) => t.bottom - t.top)), what).toBeLessThanOrEqual(1);
          expect(spread(row.map((t) => t.top)), what).toBeLessThanOrEqual(1);
          expect(spread(row.map((t) => t.priceBottom)), what).toBeLessThanOrEqual(1);
          if (spread(row.map((t) => t.nameLines)) > 0) longNames++;
          expect(
            row.every((t) => t.imgSquare),
            what,
          ).toBe(true);
          if (options.hasTouch)
            expect(
              row.every((t) => t.infoBelowImg),
              what,
            ).toBe(true);
        }
        await page.screenshot({ path: join(SCREENS, `tiles-${vendor.id}-${name}.png`), fullPage: true });
      }
      // The case this is about: on a touch screen some row mixes a one-line name with a longer one.
      if (name.endsWith('touch')) expect(longNames).toBeGreaterThan(0);
      expect(unexpectedErrors(errors)).toEqual([]);
      await close();
    },
  );
});
