import { describe, expect, it } from 'vitest';
import { redact, redactRequestUrl, redactUrl, registerSecrets } from './redact';

describe('redaction', () => {
  it('removes URL passwords and key parameters, keeping what helps to diagnose', () => {
    expect(redactUrl('smtp://orders:hunter2@smtp.example:587')).toBe('smtp://orders:***@smtp.example:587');
    expect(redactUrl('https://rpc.example/?api-key=abc123&commitment=confirmed')).toBe(
      'https://rpc.example/?api-key=***&commitment=confirmed',
    );
    expect(redactUrl('https://mainnet.helius-rpc.example/v2/3f9a8b7c6d5e4f3a2b1c0d9e8f7a')).toBe(
      'https://mainnet.helius-rpc.example/v2/***',
    );
    expect(redactUrl('https://api.mainnet-beta.solana.com')).toBe('https://api.mainnet-beta.solana.com');
  });

  it('masks e-mail addresses, URLs inside text and registered secrets', () => {
    registerSecrets(['quote-secret-value-123456']);
    expect(
      redact(
        'SMTP 550 <ada@example.com>: rejected; via smtps://u:pw9@mail.example; key quote-secret-value-123456',
      ),
    ).toBe('SMTP 550 <***@example.com>: rejected; via smtps://u:***@mail.example; key ***');
  });

  it('redacts request URLs, decoding parameters first', () => {
    expect(redactRequestUrl('/api/x?to=ada%40example.com&api-key=K1&n=2')).toBe(
      '/api/x?to=***%40example.com&api-key=***&n=2',
    );
    expect(redactRequestUrl('/api/x?email=ada%40example.com')).toBe('/api/x?email=***');
    expect(redactRequestUrl('/api/orders/abc')).toBe('/api/orders/abc');
  });

  it('masks search terms, order page tokens and shortens order ids in request URLs', () => {
    expect(redactRequestUrl('/api/seller/orders?q=Zelda%20Brambleworth&status=paid&page=2')).toBe(
      '/api/seller/orders?q=***&status=paid&page=2',
    );
    expect(redactRequestUrl('/api/seller/orders.csv?q=12+Elm+Street')).toBe('/api/seller/orders.csv?q=***');
    expect(redactRequestUrl('/order/0123456789abcdef0123456789abcdef')).toBe('/order/***');
    expect(redactRequestUrl('/api/order-pages/0123456789abcdef0123456789abcdef')).toBe(
      '/api/order-pages/***',
    );
    expect(redactRequestUrl('/api/order-pages/0123456789abcdef/data?x=1')).toBe(
      '/api/order-pages/***/data?x=1',
    );
    expect(redactRequestUrl('/api/orders/0f8a1c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b/confirmation')).toBe(
      '/api/orders/0f8a1c2e…/confirmation',
    );
    expect(redactRequestUrl('/api/seller/orders/0F8A1C2E-3B4D-4E5F-8A9B-0C1D2E3F4A5B')).toBe(
      '/api/seller/orders/0F8A1C2E…',
    );
  });
});
