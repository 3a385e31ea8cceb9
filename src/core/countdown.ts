/**
 * The weekly airdrop-and-burn countdown: next Sunday 00:00 in a time zone (default America/Los_Angeles, the
 * "(PST)" of the label; DST-aware). Pure: the clock is passed in. Uses only Intl time-zone math.
 *
 * Rule (spec §4): the target is the next Sunday midnight; if it is Sunday already (even at 00:00:00 exactly),
 * the target is the following Sunday. At zero the caller recomputes and gets the week after.
 */

export const AIRDROP_TIME_ZONE = 'America/Los_Angeles';

interface WallClock {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number; // 0 = Sunday
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock reading of an instant in a time zone. */
export function wallClock(instant: Date, timeZone: string): WallClock {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(instant)) parts[p.type] = p.value;
  const num = (k: string) => Number(parts[k]);
  return {
    year: num('year'),
    month: num('month'),
    day: num('day'),
    hour: num('hour') % 24,
    minute: num('minute'),
    second: num('second'),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
  };
}

/** Offset of the zone at an instant, in ms (local wall time minus UTC), whole seconds. */
function offsetMs(instant: number, timeZone: string): number {
  const w = wallClock(new Date(instant), timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant at which the zone's wall clock reads the given local date at 00:00:00. */
export function zonedMidnight(year: number, month: number, day: number, timeZone: string): Date {
  const naive = Date.UTC(year, month - 1, day, 0, 0, 0);
  let guess = naive - offsetMs(naive, timeZone);
  // Second pass: the offset at the guess may differ from the offset at the naive instant (DST change between).
  const corrected = naive - offsetMs(guess, timeZone);
  if (corrected !== guess) guess = corrected;
  return new Date(guess);
}

/** Next Sunday 00:00 in `timeZone` strictly after `now` (if it is Sunday there, the following Sunday). */
export function nextSundayMidnight(now: Date, timeZone: string = AIRDROP_TIME_ZONE): Date {
  const w = wallClock(now, timeZone);
  if (w.weekday < 0) throw new Error(`could not read the weekday in time zone ${timeZone}`);
  const daysAhead = w.weekday === 0 ? 7 : 7 - w.weekday;
  // Calendar arithmetic on the local date (UTC used as a plain calendar, no zone involved).
  const target = new Date(Date.UTC(w.year, w.month - 1, w.day + daysAhead));
  return zonedMidnight(target.getUTCFullYear(), target.getUTCMonth() + 1, target.getUTCDate(), timeZone);
}

export interface Remaining {
  totalMs: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** Whole days/hours/minutes/seconds from `now` to `target` (never negative). */
export function remaining(now: Date, target: Date): Remaining {
  const totalMs = Math.max(0, target.getTime() - now.getTime());
  const totalSeconds = Math.floor(totalMs / 1000);
  return {
    totalMs,
    days: Math.floor(totalSeconds / 86_400),
    hours: Math.floor((totalSeconds % 86_400) / 3600),
    minutes: Math.floor((totalSeconds % 3600) / 60),
    seconds: totalSeconds % 60,
  };
}

/** One tick: the target to count to and what remains. Recomputes the target when the old one is reached. */
export function countdownTick(
  now: Date,
  previousTarget: Date | undefined,
  timeZone: string = AIRDROP_TIME_ZONE,
): { target: Date; left: Remaining } {
  const target =
    previousTarget && previousTarget.getTime() > now.getTime()
      ? previousTarget
      : nextSundayMidnight(now, timeZone);
  return { target, left: remaining(now, target) };
}
