import { describe, expect, it } from 'vitest';
import { countdownTick, nextSundayMidnight, remaining, wallClock, zonedMidnight } from './countdown';

const LA = 'America/Los_Angeles';
const iso = (d: Date) => d.toISOString();

describe('nextSundayMidnight (America/Los_Angeles)', () => {
  it('from a Wednesday afternoon in winter (PST, UTC-8) targets the coming Sunday 08:00 UTC', () => {
    // Wed 2026-01-14 15:30 PST
    expect(iso(nextSundayMidnight(new Date('2026-01-14T23:30:00Z')))).toBe('2026-01-18T08:00:00.000Z');
  });

  it('from a summer weekday (PDT, UTC-7) targets Sunday 07:00 UTC', () => {
    // Tue 2026-07-07 09:00 PDT
    expect(iso(nextSundayMidnight(new Date('2026-07-07T16:00:00Z')))).toBe('2026-07-12T07:00:00.000Z');
  });

  it('on a Sunday targets the following Sunday', () => {
    // Sun 2026-01-18 10:00 PST
    expect(iso(nextSundayMidnight(new Date('2026-01-18T18:00:00Z')))).toBe('2026-01-25T08:00:00.000Z');
  });

  it('at Sunday midnight exactly targets the following Sunday, a full week away', () => {
    const now = new Date('2026-01-18T08:00:00Z'); // Sun 00:00:00 PST
    const t = nextSundayMidnight(now);
    expect(iso(t)).toBe('2026-01-25T08:00:00.000Z');
    expect(remaining(now, t)).toMatchObject({ days: 7, hours: 0, minutes: 0, seconds: 0 });
  });

  it('on Saturday 23:59:59 local targets one second later', () => {
    const now = new Date('2026-01-18T07:59:59Z'); // Sat 23:59:59 PST
    const t = nextSundayMidnight(now);
    expect(iso(t)).toBe('2026-01-18T08:00:00.000Z');
    expect(remaining(now, t)).toEqual({ totalMs: 1000, days: 0, hours: 0, minutes: 0, seconds: 1 });
  });

  it('uses the local (LA) weekday, not the UTC one: Saturday evening LA is already Sunday in UTC', () => {
    // Sat 2026-01-17 20:00 PST = Sun 04:00 UTC
    expect(iso(nextSundayMidnight(new Date('2026-01-18T04:00:00Z')))).toBe('2026-01-18T08:00:00.000Z');
  });

  it('across the March DST change: the week that springs forward is 167 hours long', () => {
    // 2026: DST starts Sun 8 March 02:00 PST. From Sun 1 March 00:00 PST (08:00Z) to Sun 8 March 00:00 PST.
    const start = new Date('2026-03-01T08:00:00Z');
    const t = nextSundayMidnight(start);
    expect(iso(t)).toBe('2026-03-08T08:00:00.000Z'); // midnight still PST (change is at 02:00)
    // The week after: Sun 15 March 00:00 PDT = 07:00Z, 167 h after Sun 8 March 00:00 PST.
    const next = nextSundayMidnight(t);
    expect(iso(next)).toBe('2026-03-15T07:00:00.000Z');
    expect((next.getTime() - t.getTime()) / 3_600_000).toBe(167);
    // Mid-week during the change (Wed 11 March 12:00 PDT)
    expect(remaining(new Date('2026-03-11T19:00:00Z'), next)).toMatchObject({
      days: 3,
      hours: 12,
      minutes: 0,
      seconds: 0,
    });
  });

  it('across the November DST change: the week that falls back is 169 hours long', () => {
    // 2026: DST ends Sun 1 November 02:00 PDT.
    const t = nextSundayMidnight(new Date('2026-10-28T19:00:00Z')); // Wed 28 Oct 12:00 PDT
    expect(iso(t)).toBe('2026-11-01T07:00:00.000Z'); // Sun 1 Nov 00:00 PDT
    const next = nextSundayMidnight(t);
    expect(iso(next)).toBe('2026-11-08T08:00:00.000Z'); // Sun 8 Nov 00:00 PST
    expect((next.getTime() - t.getTime()) / 3_600_000).toBe(169);
    // Sat 7 Nov 23:00 PST → one hour left
    expect(remaining(new Date('2026-11-08T07:00:00Z'), next)).toMatchObject({
      days: 0,
      hours: 1,
      minutes: 0,
      seconds: 0,
    });
  });

  it('crosses month and year ends', () => {
    // Thu 2026-12-31 12:00 PST → Sun 2027-01-03
    expect(iso(nextSundayMidnight(new Date('2026-12-31T20:00:00Z')))).toBe('2027-01-03T08:00:00.000Z');
  });

  it('works for other zones (UTC)', () => {
    expect(iso(nextSundayMidnight(new Date('2026-01-14T12:00:00Z'), 'UTC'))).toBe('2026-01-18T00:00:00.000Z');
  });

  it('zonedMidnight reads back as 00:00:00 local on the right date', () => {
    for (const [y, m, d] of [
      [2026, 3, 8],
      [2026, 11, 1],
      [2026, 6, 21],
    ] as const) {
      const w = wallClock(zonedMidnight(y, m, d, LA), LA);
      expect([w.year, w.month, w.day, w.hour, w.minute, w.second]).toEqual([y, m, d, 0, 0, 0]);
    }
  });
});

describe('countdownTick', () => {
  it('keeps the target while it is in the future and recomputes at zero', () => {
    const first = countdownTick(new Date('2026-01-18T07:59:58Z'), undefined);
    expect(iso(first.target)).toBe('2026-01-18T08:00:00.000Z');
    const same = countdownTick(new Date('2026-01-18T07:59:59Z'), first.target);
    expect(same.target).toBe(first.target);
    expect(same.left.seconds).toBe(1);
    const atZero = countdownTick(new Date('2026-01-18T08:00:00Z'), first.target);
    expect(iso(atZero.target)).toBe('2026-01-25T08:00:00.000Z');
    expect(atZero.left.days).toBe(7);
  });

  it('never reports negative time', () => {
    expect(remaining(new Date(10_000), new Date(0))).toEqual({
      totalMs: 0,
      days: 0,
      hours: 0,
      minutes: 0,
      seconds: 0,
    });
  });
});
