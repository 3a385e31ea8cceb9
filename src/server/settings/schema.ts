import { isAddress } from '@solana/kit';
import { redactUrl } from '../redact';

/**
 * A settings section's schema: every environment variable it reads, with a line of documentation, its default
 * and, for numbers, its range. A section can read only the names its schema declares (reading another is a
 * programming error, thrown at once), and the README's settings list and `.env.example` are checked against
 * the schemas (settings/docs.test.ts), so a setting cannot be added without being documented.
 *
 * A name may hold `<KEY>`, a payout group's settings key (RECIPIENT_<KEY>): one setting per vendor.
 */
export interface SettingSpec {
  /** What the setting does, in plain words (one or two sentences; the README's list shows it). */
  doc: string;
  /** The value an unset setting means, when it is fixed (`.env.example` may show only this value). */
  default?: string | number;
  /** The default in words, when it depends on other settings or on demo mode. */
  defaultDoc?: string;
  /** A whole number within [min, max]; `default` is then a number. */
  int?: readonly [min: number, max: number];
  /** A percentage within [min, max] basis points ('10%' or '10', up to two decimals); `default` is text. */
  percentBps?: readonly [min: number, max: number];
  /** The values accepted, in words (shown in the README's list). */
  values?: string;
}

export interface Section<Needs, Out> {
  /** The section's title in the README and its file under src/server/settings/. */
  title: string;
  settings: Readonly<Record<string, SettingSpec>>;
  read(r: Reader, needs: Needs): Out;
}

export type Env = Record<string, string | undefined>;

export function section<Needs, Out>(s: Section<Needs, Out>): Section<Needs, Out> {
  return s;
}

/** The regular expression a declared name (possibly a `<KEY>` pattern) matches; group 1 is the key. */
export function namePattern(name: string): RegExp {
  return new RegExp(`^${name.replace('<KEY>', '(.+)')}$`);
}

/**
 * Reads and validates one section's settings, collecting each problem (`NAME: what is wrong (got '…')`) instead
 * of stopping at the first, so the server names every bad setting at once.
 */
export class Reader {
  private readonly patterns: RegExp[];

  constructor(
    private readonly env: Env,
    private readonly s: Pick<Section<never, unknown>, 'title' | 'settings'>,
    readonly problems: string[],
  ) {
    this.patterns = Object.keys(s.settings)
      .filter((n) => n.includes('<KEY>'))
      .map(namePattern);
  }

  private spec(name: string): SettingSpec | undefined {
    const spec = this.s.settings[name];
    if (spec) return spec;
    if (this.patterns.some((p) => p.test(name))) return undefined;
    throw new Error(
      `settings: the section '${this.s.title}' reads ${name}, which its schema does not declare`,
    );
  }

  problem(text: string): void {
    this.problems.push(text);
  }

  /** The trimmed value; undefined when unset or blank. */
  get(name: string): string | undefined {
    this.spec(name);
    const v = this.env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  }

  /** A whole number within the schema's range; its default when unset or bad. */
  int(name: string): number {
    const spec = this.spec(name);
    if (!spec?.int || typeof spec.default !== 'number')
      throw new Error(`settings: ${name} is not declared as a whole number with a default`);
    const [min, max] = spec.int;
    const raw = this.get(name);
    if (raw === undefined) return spec.default;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      this.problem(`${name}: must be a whole number from ${min} to ${max} (got '${raw}')`);
      return spec.default;
    }
    return Number(raw);
  }

  /** A percentage ('10%' or '10', up to two decimals) within the schema's range, as basis points. */
  percentBps(name: string): number {
    const spec = this.spec(name);
    if (!spec?.percentBps || spec.default === undefined)
      throw new Error(`settings: ${name} is not declared as a percentage with a default`);
    const [min, max] = spec.percentBps;
    const fallback = parsePercentBps(String(spec.default));
    const raw = this.get(name);
    if (raw === undefined) return fallback;
    const bps = parsePercentBps(raw);
    if (!(bps >= min && bps <= max)) {
      this.problem(`${name}: must be a percentage from ${min / 100} % to ${max / 100} % (got '${raw}')`);
      return fallback;
    }
    return bps;
  }

  /** A URL of one of `schemes`, without trailing slashes; undefined when unset (and no fallback) or bad. */
  url(name: string, fallback: string | undefined, schemes = ['http:', 'https:']): string | undefined {
    const raw = this.get(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (!schemes.includes(u.protocol)) throw new Error('scheme');
      return raw.replace(/\/+$/, '');
    } catch {
      this.problem(
        `${name}: must be a ${schemes.map((s) => s.replace(':', '')).join(' or ')} URL (got '${redactUrl(raw)}')`,
      );
      return undefined;
    }
  }

  /** A base58 Solana address, required (the fallback stands in for an unset one). */
  pubkey(name: string, fallback: string | undefined): string {
    const raw = this.get(name) ?? fallback;
    if (raw === undefined) {
      this.problem(`${name}: required (a base58 Solana address)`);
      return '';
    }
    // A base58 string of 32 bytes, which is its own canonical form.
    if (isAddress(raw)) return raw;
    this.problem(`${name}: not a valid base58 Solana address (got '${raw}')`);
    return '';
  }

  /** A value that must be set (`why`: when, e.g. 'when MAIL_TRANSPORT=emailjs'). */
  required(name: string, why: string): string {
    const v = this.get(name);
    if (v === undefined) this.problem(`${name}: required ${why}`);
    return v ?? '';
  }
}

/** '10%', '10' or '7.5 %' as basis points; NaN when not a percentage with at most two decimals. */
export function parsePercentBps(raw: string): number {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?\s*%?$/.exec(raw);
  return m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : NaN;
}

/** A URL's password (decoded), to mask it wherever it appears; undefined when it has none. */
export function urlPassword(raw: string): string | undefined {
  try {
    return decodeURIComponent(new URL(raw).password) || undefined;
  } catch {
    return undefined;
  }
}
