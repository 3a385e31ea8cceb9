import { section } from './schema';
import type { Settings } from './types';

/** The database: a SQLite file, or PostgreSQL for several API instances. */
export const storeSection = section({
  title: 'Store',
  settings: {
    DATABASE_URL: {
      doc: 'The database: a SQLite file path or sqlite: URL, or postgres://user@host:5432/db for several instances.',
      default: 'var/store.sqlite',
    },
  },
  read(r): Pick<Settings, 'database'> {
    let database: Settings['database'] = { kind: 'sqlite', file: 'var/store.sqlite' };
    const dbRaw = r.get('DATABASE_URL');
    if (dbRaw !== undefined) {
      if (/^postgres(ql)?:\/\//.test(dbRaw)) {
        try {
          new URL(dbRaw);
          database = { kind: 'postgres', url: dbRaw };
        } catch {
          r.problem(`DATABASE_URL: not a valid postgres:// URL`);
        }
      } else if (dbRaw.startsWith('sqlite:')) {
        const file = dbRaw.replace(/^sqlite:(\/\/)?/, '');
        if (!file) r.problem('DATABASE_URL: sqlite: URL needs a file path');
        else database = { kind: 'sqlite', file };
      } else if (/^[a-z]+:\/\//i.test(dbRaw)) {
        r.problem(`DATABASE_URL: must be a file path, a sqlite: URL or a postgres:// URL`);
      } else {
        database = { kind: 'sqlite', file: dbRaw };
      }
    }
    return { database };
  },
});
