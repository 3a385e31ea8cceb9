import { describe, expect, it } from 'vitest';
import {
  createSealer,
  demoDataKey,
  isSealed,
  parseDataKeys,
  sealedKeyId,
  SEALED_PREFIX,
  UnreadableSealError,
} from './seal';

const ORDER = '0f8a1c2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER = '9e8d7c6b-5a49-4837-a261-5f4e3d2c1b0a';
const key = (id: string, byte: number) => ({ id, key: Buffer.alloc(32, byte) });
const PLAIN = JSON.stringify({ fullName: 'Zelda Quixotic-Brambleworth', email: 'zq@example.net' });

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UnreadableSealError);
    return (err as UnreadableSealError).reason;
  }
  throw new Error('expected a refusal');
}

describe('sealing personal data (AES-256-GCM)', () => {
  const sealer = createSealer([key('k1', 1)]);

  it('seals to a prefixed text that does not contain the plain text, and opens it again', () => {
    const sealed = sealer.seal(PLAIN, ORDER, 'shipping');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed.startsWith(`${SEALED_PREFIX}k1:`)).toBe(true);
    expect(sealedKeyId(sealed)).toBe('k1');
    expect(sealed).not.toContain('Zelda');
    expect(Buffer.from(sealed.split(':')[3]!, 'base64url').toString('latin1')).not.toContain('Zelda');
    expect(sealer.open(sealed, ORDER, 'shipping')).toBe(PLAIN);
  });

  it('uses a random nonce per value: the same text seals differently every time', () => {
    const a = sealer.seal(PLAIN, ORDER, 'shipping');
    const b = sealer.seal(PLAIN, ORDER, 'shipping');
    expect(a).not.toBe(b);
    const nonce = (s: string) => Buffer.from(s.split(':')[3]!, 'base64url').subarray(0, 12).toString('hex');
    expect(nonce(a)).not.toBe(nonce(b));
  });

  it('refuses a tampered value (any flipped bit of nonce, ciphertext or tag)', () => {
    const sealed = sealer.seal(PLAIN, ORDER, 'shipping');
    const raw = Buffer.from(sealed.split(':')[3]!, 'base64url');
    for (const at of [0, 11, 12, raw.length - 17, raw.length - 1]) {
      const bent = Buffer.from(raw);
      bent[at] = (bent[at] ?? 0) ^ 0x01;
      const text = `${SEALED_PREFIX}k1:${bent.toString('base64url')}`;
      expect(refusal(() => sealer.open(text, ORDER, 'shipping'))).toBe('tampered');
    }
    expect(refusal(() => sealer.open(`${SEALED_PREFIX}k1:AAAA`, ORDER, 'shipping'))).toBe('malformed');
    expect(refusal(() => sealer.open(`${SEALED_PREFIX}k1:not base64!`, ORDER, 'shipping'))).toBe('malformed');
  });

  it('refuses a value moved to another order or another field (the associated data)', () => {
    const sealed = sealer.seal(PLAIN, ORDER, 'shipping');
    expect(refusal(() => sealer.open(sealed, OTHER, 'shipping'))).toBe('tampered');
    expect(refusal(() => sealer.open(sealed, ORDER, 'outbox.payload'))).toBe('tampered');
  });

  it('refuses a key id relabelled onto another key', () => {
    const two = createSealer([key('k2', 2), key('k1', 1)]);
    const sealed = two.seal(PLAIN, ORDER, 'shipping');
    const relabelled = sealed.replace(`${SEALED_PREFIX}k2:`, `${SEALED_PREFIX}k1:`);
    expect(refusal(() => two.open(relabelled, ORDER, 'shipping'))).toBe('tampered');
  });

  it('rotation: the first key seals, every key opens; a dropped key leaves its values unreadable', () => {
    const old = createSealer([key('k1', 1)]);
    const sealedOld = old.seal(PLAIN, ORDER, 'shipping');
    const rotated = createSealer([key('k2', 2), key('k1', 1)]);
    expect(rotated.currentKeyId).toBe('k2');
    expect(rotated.open(sealedOld, ORDER, 'shipping')).toBe(PLAIN);
    const resealed = rotated.seal(rotated.open(sealedOld, ORDER, 'shipping'), ORDER, 'shipping');
    expect(sealedKeyId(resealed)).toBe('k2');
    const dropped = createSealer([key('k2', 2)]);
    expect(dropped.open(resealed, ORDER, 'shipping')).toBe(PLAIN);
    expect(refusal(() => dropped.open(sealedOld, ORDER, 'shipping'))).toBe('unknown_key');
    // A different key under the same id is not the same key.
    expect(refusal(() => createSealer([key('k2', 9)]).open(resealed, ORDER, 'shipping'))).toBe('tampered');
  });

  it('a plain value where a sealed one belongs is unreadable, never read as written', () => {
    expect(() => sealer.open(PLAIN, ORDER, 'shipping')).toThrow(UnreadableSealError);
    expect(sealer.open(sealer.seal('x', ORDER, 'shipping'), ORDER, 'shipping')).toBe('x');
  });

  it('the error message names no value, order or key', () => {
    const sealed = sealer.seal(PLAIN, ORDER, 'shipping');
    try {
      sealer.open(sealed, OTHER, 'shipping');
    } catch (err) {
      const m = (err as Error).message;
      expect(m).not.toContain(OTHER);
      expect(m).not.toContain(sealed.slice(15, 40));
    }
  });

  it('refuses bad keys at construction', () => {
    expect(() => createSealer([])).toThrow();
    expect(() => createSealer([{ id: 'x', key: Buffer.alloc(16) }])).toThrow();
    expect(() => createSealer([key('a b', 1)])).toThrow();
    expect(() => createSealer([key('a', 1), key('a', 2)])).toThrow();
  });

  it('parses DATA_KEYS and derives a fixed demo key', () => {
    const k = Buffer.alloc(32, 5).toString('base64');
    expect(parseDataKeys(`a:${k},b:${k}`).keys.map((x) => x.id)).toEqual(['a', 'b']);
    expect(parseDataKeys('').problems).toHaveLength(1);
    expect(demoDataKey().key.equals(demoDataKey().key)).toBe(true);
    expect(demoDataKey().id).toBe('demo');
  });
});
