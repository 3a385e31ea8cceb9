/**
 * Dates and times on pages, in the reader's own zone and the store's one format (src/core/zone-dates.ts):
 * "24 Nov 2026, 17:35 CET".
 */
import { formatDate, formatDateTime, formatTime } from '../../core/zone-dates';

/** A time of day in the reader's own zone, naming it ("16:35 UTC", "17:35 CET"). */
export const formatLocalTime = (iso: string): string => formatTime(iso);

/** A date and time in the reader's own zone, naming it ("24 Nov 2026, 16:35 UTC"). */
export const formatLocalDateTime = (iso: string): string => formatDateTime(iso);

/** A calendar date in the reader's own zone ("24 Nov 2026"). */
export const formatLocalDate = (iso: string): string => formatDate(iso);
