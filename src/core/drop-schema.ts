/**
 * The catalogue's schema of a drop (issue 32, docs/decisions/drops.md), apart from the rules in drop.ts so that the
 * browser pages that apply the rules do not carry zod (its top-level schema calls cannot be tree-shaken).
 */
import { z } from 'zod';

export const DropSchema = z
  .object({
    /** When buying opens, to the second, by the server's clock: an ISO time with its zone (Z or ±hh:mm). */
    startsAt: z
      .string()
      .datetime({ offset: true, message: 'must be an ISO time with its zone, e.g. 2026-12-05T18:00:00Z' }),
    /** How long a piece is held for a buyer who has not paid yet (and how long its quote lasts): 1–15 minutes. */
    holdMinutes: z.number().int('must be a whole number of minutes').min(1).max(15).optional(),
    /** Pieces of this drop one buyer may have, held or bought (default 1). */
    perBuyer: z.number().int('must be a whole number').min(1).max(100).optional(),
    /**
     * A vendor's batch: the drop's name as buyers read it (e.g. 'Spring 2026'). The vendor's products with the same
     * batch are one drop: they share `startsAt`, `holdMinutes` and `perBuyer` (parseCatalog checks), and
     * `perBuyer` counts the pieces of the whole batch. Without it, the product is a drop of its own.
     */
    batch: z
      .string()
      .trim()
      .min(1, 'must name the batch, e.g. Spring 2026')
      .max(60, 'must be at most 60 characters')
      .optional(),
  })
  .strict();

export type Drop = z.infer<typeof DropSchema>;
