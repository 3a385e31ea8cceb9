/**
 * A vendor's batch in the catalogue (docs/decisions/drops.md "A vendor's batch"): one drop of several products,
 * which must share the start, the hold and the per-buyer limit; parseCatalog refuses one that does not, in words.
 */
import { describe, expect, it } from 'vitest';
import { CatalogError, parseCatalog } from '../src/core/catalog';
import { dropGroupOf, dropLimitRefusal, dropTurnPassed } from '../src/core/drop';
import { products } from './products';
import { vendors } from './vendors';

const lilac = products.find((p) => p.id === 'lilac-tiptop')!;
const piece = (id: string, drop: Record<string, unknown>, vendorId = lilac.vendorId) => ({
  ...lilac,
  vendorId,
  id,
  routes: [`/vendors/x/${id}`],
  drop: { startsAt: '2030-01-01T18:00:00Z', ...drop },
});

describe('a drop batch in the catalogue', () => {
  it('is one drop: its products together, the limit words naming the batch', () => {
    const cat = parseCatalog({
      vendors,
      products: [
        ...products,
        piece('a', { batch: 'Spring 2026', perBuyer: 1 }),
        // The same instant in another zone, the defaults written out: the same batch.
        piece('b', { batch: 'Spring 2026', startsAt: '2030-01-01T19:00:00+01:00', holdMinutes: 5 }),
        piece('c', { batch: 'Autumn 2026' }),
        piece('d', {}),
      ],
    });
    const group = (id: string) =>
      dropGroupOf(
        cat.products,
        cat.products.find((p) => p.id === id)!,
      );
    expect(group('a')).toMatchObject({ name: 'Spring 2026', batch: 'Spring 2026', productIds: ['a', 'b'] });
    expect(group('c')?.productIds).toEqual(['c']);
    expect(group('d')).toMatchObject({ key: 'd', name: lilac.name, productIds: ['d'] });
    expect(group('d')?.batch).toBeUndefined();
    expect(group('lilac-tiptop')).toBeUndefined();
    expect(dropLimitRefusal('Spring 2026', 1, 'Spring 2026').message).toBe(
      'One buyer can have at most 1 piece of this drop (Spring 2026), and you already have one reserved or bought.',
    );
    expect(dropLimitRefusal('Opal Drop', 1).message).toBe(
      'One buyer can have at most 1 piece of Opal Drop, and you already have it reserved or bought.',
    );
    expect(dropTurnPassed().message).toBe(
      'You have had your turn in this drop: each buyer is let through once.',
    );
  });

  it('refuses, in words, a batch whose products do not share startsAt, holdMinutes and perBuyer', () => {
    const parse = () =>
      parseCatalog({
        vendors,
        products: [
          ...products,
          piece('a', { batch: 'Spring 2026' }),
          piece('b', { batch: 'Spring 2026', startsAt: '2030-01-01T18:00:01Z', perBuyer: 2 }),
          piece('c', { batch: 'Spring 2026', holdMinutes: 3 }),
        ],
      });
    expect(parse).toThrow(CatalogError);
    expect(parse).toThrow(
      "product 'b', field 'drop': the products of batch 'Spring 2026' must share startsAt, holdMinutes and perBuyer; it has startsAt 2030-01-01T18:00:01Z, not 2030-01-01T18:00:00Z, perBuyer 2, not 1 (as 'a' has)",
    );
    expect(parse).toThrow(
      "product 'c', field 'drop': the products of batch 'Spring 2026' must share startsAt, holdMinutes and perBuyer; it has holdMinutes 3, not 5 (as 'a' has)",
    );
  });

  it("refuses an empty batch name; another vendor's batch of the same name is another drop", () => {
    expect(() => parseCatalog({ vendors, products: [...products, piece('a', { batch: ' ' })] })).toThrow(
      "(a), field 'drop.batch': must name the batch, e.g. Spring 2026",
    );
    const other = vendors.find((v) => v.id !== lilac.vendorId)!;
    const cat = parseCatalog({
      vendors,
      products: [
        ...products,
        piece('a', { batch: 'Spring 2026' }),
        piece('b', { batch: 'Spring 2026', perBuyer: 3 }, other.id),
      ],
    });
    const a = dropGroupOf(
      cat.products,
      cat.products.find((p) => p.id === 'a')!,
    );
    expect(a?.productIds).toEqual(['a']);
  });
});
