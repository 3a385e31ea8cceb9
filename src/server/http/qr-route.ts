/**
 * GET /api/qr.svg?data=<solana: URL>: the Solana Pay link as a QR code in SVG, drawn on the server with the
 * `qrcode` package so the QR product page ships no QR library (~10 KB gzip). The answer depends on `data` only,
 * so it is cacheable for a day by anyone (`immutable`). Only `solana:` URLs up to MAX_QR_DATA characters are
 * drawn, and only when their UTF-8 bytes fit in a QR code, and only the shop's own payment links (orders/shop-links.ts:
 * $CLAIM to one of our vendors for one of our orders, in the shop's words): anything else is a 400 with the
 * ApiError body, so the route cannot be used to draw arbitrary images or someone else's payment request under the
 * shop's name. Rate limited per client (RATE_LIMIT_QR_PER_MINUTE).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toString as qrToString } from 'qrcode';
import { DomainError } from '../../core/errors';
import type { QrLinkCheck } from '../orders/shop-links';
import { parseWith } from './validate';

export const QR_ROUTE = '/api/qr.svg';
export const MAX_QR_DATA = 1024;
/** Bytes a version-40 QR code holds in byte mode at error correction level M (ISO/IEC 18004, table 7). */
export const QR_BYTE_CAPACITY_M = 2331;
export const QR_CACHE_CONTROL = 'public, max-age=86400, immutable';

const REQUIRED = 'Query parameter `data` is required: the solana: payment link to draw.';
const QrQuery = z.object({
  data: z
    .string({ required_error: REQUIRED, invalid_type_error: REQUIRED })
    .min(1, REQUIRED)
    .max(MAX_QR_DATA, `Query parameter \`data\` is too long (at most ${MAX_QR_DATA} characters).`)
    .regex(/^solana:[^\s]+$/, 'Query parameter `data` must be a solana: payment link.')
    // Characters are not bytes: 1,017 × "€" is under the character cap but 3,051 bytes of UTF-8.
    .superRefine((v, ctx) => {
      const bytes = Buffer.byteLength(v, 'utf8');
      if (bytes > QR_BYTE_CAPACITY_M)
        ctx.addIssue({
          code: 'custom',
          message: `Query parameter \`data\` does not fit in a QR code (${bytes} bytes of UTF-8; at most ${QR_BYTE_CAPACITY_M}).`,
        });
    }),
});

/** Recently drawn codes (a QR page asks again for the same link on every render and quantity change). */
const CACHE_SIZE = 256;

/** The one way the shop draws a payment link: SVG, quiet zone 4 modules, error correction M, black on white. */
export function drawQrSvg(link: string): Promise<string> {
  return qrToString(link, {
    type: 'svg',
    margin: 4,
    errorCorrectionLevel: 'M',
    color: { dark: '#000000', light: '#ffffff' },
  });
}

/**
 * The QR of a link the shop has just written (a QR record's own link, in POST /api/orders and PUT
 * /api/orders/:id/quote): the same drawing as GET /api/qr.svg, sent with the record so the page needs no third
 * round trip for its code. `undefined` when it cannot be drawn (the page then asks the route, which says why).
 */
const recordCache = new Map<string, string>();
export async function qrSvgOfShopLink(link: string): Promise<string | undefined> {
  let svg = recordCache.get(link);
  if (svg !== undefined) return svg;
  if (link.length > MAX_QR_DATA) return undefined;
  try {
    svg = await drawQrSvg(link);
  } catch {
    return undefined;
  }
  if (recordCache.size >= CACHE_SIZE) recordCache.delete(recordCache.keys().next().value as string);
  recordCache.set(link, svg);
  return svg;
}

export function qrRoute(app: FastifyInstance, isShopLink: QrLinkCheck): void {
  const cache = new Map<string, string>();

  app.get(QR_ROUTE, async (req, reply) => {
    const { data: raw } = parseWith(QrQuery, req.query ?? {}, {
      whole: REQUIRED,
      codes: { data: 'bad_request' },
    });
    let svg = cache.get(raw);
    if (svg === undefined) {
      // A drawn (cached) link passed this once already.
      await isShopLink(raw);
      try {
        svg = await drawQrSvg(raw);
      } catch (err) {
        // The encoder's own capacity check (kept as a second guard): a clear 400, never a 500.
        throw new DomainError(
          'invalid',
          'bad_request',
          `Query parameter \`data\` cannot be drawn as a QR code: ${err instanceof Error ? err.message : String(err)}`,
          { field: 'data' },
        );
      }
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(raw, svg);
    }
    return reply.type('image/svg+xml').header('cache-control', QR_CACHE_CONTROL).send(svg);
  });
}
