/**
 * Calendar dates in a named time zone (IANA, e.g. "Europe/Berlin"), turned into instants: the seller console's
 * date range and its summary periods start at midnight where the vendor is. Browser-safe (Intl only).
 */

/** Whether `zone` is a time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `utcMs`, in ms (east positive). */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(utcMs));
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second'));
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** A calendar date `YYYY-MM-DD` that exists. */
export function isCalendarDate(date: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === date;
}

/** The instant midnight of `date` (YYYY-MM-DD) begins in `zone`, as ISO-8601 UTC. */
export function startOfDay(date: string, zone: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const guess = Date.UTC(y, m - 1, d);
  let t = guess - zoneOffsetMs(zone, guess);
  // Near a daylight-saving change the offset at the result may differ from the guess's.
  const again = guess - zoneOffsetMs(zone, t);
  if (again !== t) t = again;
  return new Date(t).toISOString();
}

/** The calendar date (YYYY-MM-DD) at `utcMs` in `zone`. */
export function dateIn(zone: string, utcMs: number): string {
  return new Date(utcMs + zoneOffsetMs(zone, utcMs)).toISOString().slice(0, 10);
}

/** `date` plus `days` calendar days (YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/**
 * The store's one way of writing a date and a time, on every page, in the console and in e-mails (issue 33,
 * item 9): day, short month, year, then a 24-hour time naming its zone — "24 Nov 2026", "16:35 UTC",
 * "24 Nov 2026, 16:35 UTC". Unambiguous in every country (no 11/24 against 24/11, no AM/PM) and the same whatever
 * the reader's language settings. Pages write the reader's own zone (`zone` undefined: the runtime's, named as
 * "CET", "PST", "GMT+1"); the server and e-mails, which do not know it, write UTC.
 */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function partsOf(iso: string, zone: string | undefined) {
  const key = zone ?? '';
  let f = partsFormatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      ...(zone === undefined ? {} : { timeZone: zone }),
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      timeZoneName: 'short',
      weekday: 'long',
    });
    partsFormatters.set(key, f);
  }
  const parts = f.formatToParts(new Date(iso));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    day: Number(part('day')),
    month: MONTHS[Number(part('month')) - 1] ?? '',
    year: part('year'),
    time: `${part('hour').padStart(2, '0')}:${part('minute').padStart(2, '0')}`,
    zoneName: part('timeZoneName'),
    weekday: part('weekday'),
  };
}

/** "24 Nov 2026". */
export function formatDate(iso: string, zone?: string): string {
  const p = partsOf(iso, zone);
  return `${p.day} ${p.month} ${p.year}`;
}

/** "16:35 UTC". */
export function formatTime(iso: string, zone?: string): string {
  const p = partsOf(iso, zone);
  return `${p.time} ${p.zoneName}`;
}

/** "24 Nov 2026, 16:35 UTC". */
export function formatDateTime(iso: string, zone?: string): string {
  const p = partsOf(iso, zone);
  return `${p.day} ${p.month} ${p.year}, ${p.time} ${p.zoneName}`;
}

/** "Monday, 24 Nov 2026, 16:35 UTC": the one format led by the day of the week (a weekly countdown, a drop). */
export function formatWeekdayDateTime(iso: string, zone?: string): string {
  const p = partsOf(iso, zone);
  return `${p.weekday}, ${p.day} ${p.month} ${p.year}, ${p.time} ${p.zoneName}`;
}
