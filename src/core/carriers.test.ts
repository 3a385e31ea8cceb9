import { describe, expect, it } from 'vitest';
import { knownCarrier, trackingUrl } from './carriers';

describe('tracking links', () => {
  it.each([
    ['USPS', '9400111899223', 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223'],
    ['ups', '1Z999AA10123456784', 'https://www.ups.com/track?tracknum=1Z999AA10123456784'],
    ['Fed Ex', '123456789012', 'https://www.fedex.com/fedextrack/?trknbr=123456789012'],
    [
      'D.H.L.',
      'JD0146 0001',
      'https://www.dhl.com/global-en/home/tracking/tracking-express.html?tracking-id=JD0146%200001',
    ],
  ])('%s links to its tracking page', (carrier, n, url) => {
    expect(trackingUrl(carrier, n)).toBe(url);
  });

  it('has no link for another carrier or none', () => {
    expect(trackingUrl('Royal Mail', 'AB123')).toBeUndefined();
    expect(trackingUrl(undefined, 'AB123')).toBeUndefined();
    expect(knownCarrier('fedex')).toBe('FedEx');
  });
});
