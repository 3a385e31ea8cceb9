import { describe, expect, it } from 'vitest';
import {
  addDays,
  dateIn,
  formatDate,
  formatDateTime,
  formatTime,
  formatWeekdayDateTime,
  isCalendarDate,
  isTimeZone,
  startOfDay,
} from './zone-dates';

describe('zone dates', () => {
  it('midnight of a date in a zone is that instant in UTC, across daylight-saving changes', () => {
    expect(startOfDay('2026-11-24', 'UTC')).toBe('2026-11-24T00:00:00.000Z');
    expect(startOfDay('2026-11-24', 'Europe/Berlin')).toBe('2026-11-23T23:00:00.000Z');
    expect(startOfDay('2026-07-01', 'Europe/Berlin')).toBe('2026-06-30T22:00:00.000Z');
    expect(startOfDay('2026-11-24', 'America/Los_Angeles')).toBe('2026-11-24T08:00:00.000Z');
    // The day after the spring change starts at the new offset; the day of it at the old one.
    expect(startOfDay('2026-03-08', 'America/New_York')).toBe('2026-03-08T05:00:00.000Z');
    expect(startOfDay('2026-03-09', 'America/New_York')).toBe('2026-03-09T04:00:00.000Z');
    expect(startOfDay('2026-11-24', 'Asia/Kolkata')).toBe('2026-11-23T18:30:00.000Z');
  });

  it('the date at an instant in a zone, and dates and zones checked', () => {
    expect(dateIn('Europe/Berlin', Date.parse('2026-11-23T23:30:00Z'))).toBe('2026-11-24');
    expect(dateIn('UTC', Date.parse('2026-11-23T23:30:00Z'))).toBe('2026-11-23');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-2-1')).toBe(false);
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});

describe('the one date format', () => {
  const iso = '2026-11-24T16:35:09.000Z';
  it('writes day, short month, year and a 24-hour time naming its zone, whatever the locale', () => {
    expect(formatDate(iso, 'UTC')).toBe('24 Nov 2026');
    expect(formatTime(iso, 'UTC')).toBe('16:35 UTC');
    expect(formatDateTime(iso, 'UTC')).toBe('24 Nov 2026, 16:35 UTC');
    expect(formatDateTime('2026-09-01T00:05:00.000Z', 'UTC')).toBe('1 Sep 2026, 00:05 UTC');
  });
  it("in the reader's zone: the date and the hour move with it, and the zone is named", () => {
    expect(formatDateTime(iso, 'America/Los_Angeles')).toBe('24 Nov 2026, 08:35 PST');
    expect(formatDateTime('2026-11-24T23:30:00.000Z', 'Asia/Tokyo')).toBe('25 Nov 2026, 08:30 GMT+9');
  });
  it('led by the day of the week in that zone (a weekly countdown, a drop), no AM/PM', () => {
    expect(formatWeekdayDateTime(iso, 'UTC')).toBe('Tuesday, 24 Nov 2026, 16:35 UTC');
    expect(formatWeekdayDateTime('2026-11-30T08:00:00.000Z', 'America/Los_Angeles')).toBe(
      'Monday, 30 Nov 2026, 00:00 PST',
    );
    expect(formatWeekdayDateTime('2026-11-24T23:30:00.000Z', 'Asia/Tokyo')).toBe(
      'Wednesday, 25 Nov 2026, 08:30 GMT+9',
    );
  });
});
