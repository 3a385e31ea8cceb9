import { describe, expect, it } from 'vitest';
import { catalog } from '../../catalog';
import { demoBanner } from './demo-banner';

describe('demoBanner', () => {
  it("lists the demo's addresses on the store's and the localnet's own ports: console, mail, price control, faucet, QR pages", () => {
    const text = demoBanner({
      storeUrl: 'http://127.0.0.1:3100',
      localnetRpcUrl: 'http://127.0.0.1:9100',
      catalog,
    }).join('\n');
    expect(text).toContain('http://127.0.0.1:3100/seller');
    expect(text).toContain('Sign in as demo vendor');
    expect(text).toContain('http://127.0.0.1:3100/dev/mail');
    expect(text).toContain('http://127.0.0.1:3100/dev/price');
    expect(text).toContain('POST http://127.0.0.1:9100/faucet');
    expect(text).not.toContain('8899');
    // Every QR product's page, and no wallet product's.
    for (const p of catalog.products)
      expect(
        text.includes(`http://127.0.0.1:3100${p.routes[0]!},`) || text.includes(`${p.routes[0]!}\n`),
      ).toBe(p.payment === 'qr');
    expect(text).toContain('http://127.0.0.1:3100/strawberry-fritter');
    // The store moved: demo:pay is told where.
    expect(text).toContain("PORT=3100 npm run demo:pay -- '<solana: link from a QR page>'");
  });
});
