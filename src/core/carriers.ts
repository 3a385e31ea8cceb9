/**
 * The common carriers' tracking pages: a link for a tracking number when the carrier is USPS, UPS, FedEx or DHL
 * (named in any case, with or without spaces or dots); undefined for any other carrier. Pure, browser-safe.
 */
export const CARRIERS = ['USPS', 'UPS', 'FedEx', 'DHL'] as const;
export type Carrier = (typeof CARRIERS)[number];

const PAGES: Record<Carrier, (n: string) => string> = {
  USPS: (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`,
  UPS: (n) => `https://www.ups.com/track?tracknum=${n}`,
  FedEx: (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`,
  DHL: (n) => `https://www.dhl.com/global-en/home/tracking/tracking-express.html?tracking-id=${n}`,
};

/** The known carrier `name` means, if any ("ups", "Fed Ex", "D.H.L." …). */
export function knownCarrier(name: string | undefined): Carrier | undefined {
  const key = (name ?? '').replace(/[\s.]/g, '').toLowerCase();
  return CARRIERS.find((c) => c.toLowerCase() === key);
}

export function trackingUrl(carrier: string | undefined, trackingNumber: string): string | undefined {
  const c = knownCarrier(carrier);
  return c ? PAGES[c](encodeURIComponent(trackingNumber)) : undefined;
}
