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
    expect(redactRequestUrl('/api/x?email=ada%40example.com&api-key=K1&n=2')).toBe(
      '/api/x?email=***%40example.com&api-key=***&n=2',
    );
    expect(redactRequestUrl('/api/orders/abc')).toBe('/api/orders/abc');
  });
});
