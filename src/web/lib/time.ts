/** A time of day in the reader's own zone, naming it ("4:35 PM UTC", "16:35 CET"). */
export function formatLocalTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, {
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
}

/** A date and time in the reader's own zone, naming it ("Nov 24, 2026, 4:35 PM UTC"). */
export function formatLocalDateTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });
}
