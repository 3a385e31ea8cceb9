/**
 * Entered participants of this month's giveaway: display names only, static (spec §3). Some are partly masked
 * at the holder's request. Organisers edit this list by hand.
 */
export const GIVEAWAY_PARTICIPANTS: readonly string[] = [
  'GlassHeadGreg',
  'Ro***n_420',
  'SolanaSam',
  'dabqueen',
  'M***y P.',
  'opal_collector',
  'Big J***s',
  'reclaimer77',
  'HighDesertHank',
  'T***a',
  'puffer_fan',
  'CryptoCarla',
];
