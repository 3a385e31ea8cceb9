import { describe, expect, it } from 'vitest';
import { migrations } from './migrations';

describe('migrations', () => {
  it('are written in numeric order, each number once; a gap is a range kept for another issue (0025–0049 by issue)', () => {
    const numbers = Object.keys(migrations).map((name) => Number(name.slice(0, 4)));
    expect(numbers.every((n) => Number.isInteger(n) && n > 0)).toBe(true);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(new Set(numbers).size).toBe(numbers.length);
    // Up to 0024 written without a gap, before the ranges were shared out.
    expect(numbers.filter((n) => n <= 24)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });
});
