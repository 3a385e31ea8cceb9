import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { cachedStatements } from './durable-sqlite';

describe('cachedStatements', () => {
  it('reuses one prepared statement per SQL text, drops the least recently used past its size', () => {
    const sqlite = new SQLite(':memory:');
    const db = cachedStatements(sqlite, 2);
    const a = db.prepare('select 1 as x');
    expect(db.prepare('select 1 as x')).toBe(a);
    expect(a.all([])).toEqual([{ x: 1 }]);
    const b = db.prepare('select 2 as x');
    db.prepare('select 1 as x'); // a is now the most recent
    db.prepare('select 3 as x'); // evicts b
    expect(db.prepare('select 1 as x')).toBe(a);
    expect(db.prepare('select 2 as x')).not.toBe(b);
    db.close();
  });

  it('gives a fresh statement while the cached one is being iterated', () => {
    const sqlite = new SQLite(':memory:');
    const db = cachedStatements(sqlite);
    const text = 'select value from json_each(?)';
    const first = db.prepare(text);
    const it = first.iterate(['[1,2,3]']);
    expect(it.next().value).toEqual({ value: 1 });
    const second = db.prepare(text);
    expect(second).not.toBe(first);
    expect(second.all(['[4]'])).toEqual([{ value: 4 }]);
    expect([...it]).toEqual([{ value: 2 }, { value: 3 }]);
    expect(db.prepare(text)).toBe(first);
    db.close();
  });
});
