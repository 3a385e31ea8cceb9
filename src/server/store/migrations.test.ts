import { describe, expect, it } from 'vitest';
import { migrations } from './migrations';

describe('migrations', () => {
  it('are written in numeric order, numbered 0001, 0002, … without a gap or a repeat', () => {
    const numbers = Object.keys(migrations).map((name) => name.slice(0, 4));
    expect(numbers).toEqual(numbers.map((_, i) => String(i + 1).padStart(4, '0')));
  });
});
