import { describe, expect, it } from 'vitest';
import { StatementNames } from './pg-named';

const shapeChanged = Object.assign(new Error('cached plan must not change result type'), { code: '0A000' });

describe('StatementNames', () => {
  it('names a statement from its second use on, the same name each time', () => {
    const names = new StatementNames();
    const text = 'select "id" from "orders" where "id" = $1';
    expect(names.nameFor(text)).toBeUndefined();
    const name = names.nameFor(text);
    expect(name).toMatch(/^claim_s\d+$/);
    expect(names.nameFor(text)).toBe(name);
    expect(names.nameFor('update "orders" set "status" = $1 where "id" = $2')).toBeUndefined();
    expect(names.nameFor('update "orders" set "status" = $1 where "id" = $2')).not.toBe(name);
  });

  it('leaves unnamed what a migration could reshape or what is not a row statement', () => {
    const names = new StatementNames(256, 1);
    expect(names.nameFor('select * from "orders" where "id" = $1')).toBeUndefined();
    expect(names.nameFor('select "o".* from "orders" as "o" where "id" = $1')).toBeUndefined();
    expect(names.nameFor('insert into "orders" ("id") values ($1) returning *')).toBeUndefined();
    expect(names.nameFor('create table "t" ("id" integer default $1)')).toBeUndefined();
    expect(names.nameFor('select count(*) as "n" from "orders" where "status" = $1')).toMatch(/^claim_s/);
    expect(
      names.nameFor('with "x" as (select "id" from "orders" where "id" > $1) select count( * ) from "x"'),
    ).toMatch(/^claim_s/);
  });

  it('gives out at most `max` names; later statements stay unnamed', () => {
    const names = new StatementNames(3, 1);
    for (let i = 0; i < 3; i++) expect(names.nameFor(`select ${i} as "x" where $1 = 1`)).toBeDefined();
    expect(names.nameFor('select 9 as "x" where $1 = 1')).toBeUndefined();
    expect(names.nameFor('select 0 as "x" where $1 = 1')).toBe('claim_s1');
    expect(names.size).toBe(3);
  });

  it('a statement whose result changed shape is never named again, and its name is not reused', () => {
    const names = new StatementNames(256, 1);
    const text = 'select "v" from "t" where "id" = $1';
    const name = names.nameFor(text)!;
    names.failed(text, new Error('duplicate key value violates unique constraint'));
    expect(names.nameFor(text)).toBe(name);
    names.failed(text, shapeChanged);
    expect(names.nameFor(text)).toBeUndefined();
    expect(names.nameFor(text)).toBeUndefined();
    expect(names.nameFor('select "w" from "t" where "id" = $1')).not.toBe(name);
  });
});
