import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMailTransport, PermanentMailError } from '../../src/server/mail';
import type { Settings } from '../../src/server/settings';
import { evilFacts, outgoing, qrFacts, SELLER, walletFacts } from '../support/mail-fixtures';

interface Received {
  envelopeFrom: string;
  rcpt: string[];
  mail: ParsedMail;
}

let server: SMTPServer;
let port: number;
let received: Received[];
let rejectRcpt: string | undefined;

beforeEach(async () => {
  received = [];
  rejectRcpt = undefined;
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, cb) {
      if (address.address === rejectRcpt) {
        const err = new Error('No such user here') as Error & { responseCode: number };
        err.responseCode = 550;
        return cb(err);
      }
      cb();
    },
    onData(stream, session, cb) {
      void simpleParser(stream).then(
        (mail) => {
          received.push({
            envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            rcpt: session.envelope.rcptTo.map((r) => r.address),
            mail,
          });
          cb();
        },
        (err: Error) => cb(err),
      );
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.server.address() as AddressInfo).port;
});
afterEach(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

const settings = (): Settings['mail'] => ({
  transport: 'smtp',
  dir: 'unused',
  from: '$CLAIM Store <orders@claim-store.example>',
  sellerEmail: SELLER,
  smtpUrl: `smtp://127.0.0.1:${port}`,
});
const addr = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a[0] : a)?.value[0];

describe('smtp transport against a real SMTP server on loopback', () => {
  it('delivers seller then buyer, field by field', async () => {
    const t = createMailTransport(settings());
    for (const m of outgoing(walletFacts, 'order_confirmation', 'ord_w1')) await t.send(m);
    await t.close?.();

    expect(received).toHaveLength(2);
    const [s, b] = received as [Received, Received];
    expect(s.rcpt).toEqual([SELLER]);
    expect(b.rcpt).toEqual(['ada@example.com']);
    expect(s.envelopeFrom).toBe('orders@claim-store.example');
    expect(addr(s.mail.from)).toEqual({ address: 'orders@claim-store.example', name: '$CLAIM Store' });
    expect(addr(s.mail.to)).toEqual({ address: SELLER, name: 'Seller' });
    expect(addr(b.mail.to)).toEqual({ address: 'ada@example.com', name: 'Ada Lovelace' });
    // Replies reach a person: the seller's go to the buyer, the buyer's to the vendor.
    expect(addr(s.mail.replyTo)).toEqual({ address: 'ada@example.com', name: 'Ada Lovelace' });
    expect(addr(b.mail.replyTo)).toEqual({ address: SELLER, name: 'Gorilla Pack Genetics' });
    expect(b.mail.text).toContain(
      `Sold by Gorilla Pack Genetics. Questions about your order? Reply to this e-mail to reach Gorilla Pack Genetics (${SELLER}), or message them on Telegram: https://t.me/gorilla_pack.`,
    );
    expect(b.mail.html).toContain('<a href="https://t.me/gorilla_pack">message them on Telegram</a>');
    expect(s.mail.text).not.toContain('Sold by');
    expect(s.mail.subject).toBe('New order: BathSalts Flower (zips)');
    expect(b.mail.subject).toBe('Your $CLAIM order: BathSalts Flower (zips)');
    // Message-ID on the MAIL_FROM domain; RFC 3834's Auto-Submitted on every message.
    expect(s.mail.messageId).toBe('<ord_w1-order_confirmation-seller-0@claim-store.example>');
    expect(b.mail.messageId).toBe('<ord_w1-order_confirmation-buyer-1@claim-store.example>');
    for (const r of [s, b]) {
      const text = r.mail.text ?? '';
      expect(text).toContain('Product: BathSalts Flower (zips)');
      expect(text).toContain('Total (USD): $200.00');
      expect(text).toContain('Total ($CLAIM): 47,619.047619'); // thousands separators for reading
      // The seller reads the address; the buyer's message does not quote it (free text anyone could type for
      // anyone's address): the order page shows it.
      expect(text).toContain(
        r === s
          ? 'Shipping address: 12 St James Square, London, Greater London, SW1Y 4JH, United Kingdom'
          : 'Shipping address: as given, shown on your order page',
      );
      expect(text).toContain('Name: Ada Lovelace');
      expect(text).toContain('E-mail: ada@example.com');
      expect(text).toContain('Quantity: 1'); // ours: wallet orders name the quantity too
      expect(r.mail.html).toContain('>BathSalts Flower (zips)</td>');
      expect(r.mail.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(r.mail.headers.get('x-claim-order')).toBe('ord_w1');
      expect(r.mail.headers.get('auto-submitted')).toBe('auto-generated');
      expect(r.mail.headers.get('x-auto-response-suppress')).toBe('All');
    }
    expect(s.mail.text).toContain('Hello Seller,');
    expect(b.mail.text).toContain('Hello Ada Lovelace,');
  });

  it('QR order: quantity, N/A and the Solana Pay link', async () => {
    const t = createMailTransport(settings());
    for (const m of outgoing(qrFacts, 'order_confirmation', 'ord_q1', false)) await t.send(m);
    const text = received[0]?.mail.text ?? '';
    expect(text).toContain('Quantity: 2');
    expect(text).toContain('Total ($CLAIM): N/A');
    expect(text).toContain(`Solana Pay link: ${qrFacts.solanaPayUrl}`);
    // In HTML the long link is words (the text part keeps the URL).
    expect(received[0]?.mail.html).toMatch(
      /<a href="solana:7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU\?amount=23\.809524&amp;spl-token=Mint1111&amp;label=%24CLAIM" style="display:inline-block;padding:12px 18px[^"]*">Pay with a Solana wallet<\/a>/,
    );
    // No Telegram in the catalogue: the buyer is told to reply, without a Telegram link.
    const buyer = received[1]?.mail;
    expect(buyer?.text).toContain(
      `Sold by Gorilla Pack Genetics. Questions about your order? Reply to this e-mail to reach Gorilla Pack Genetics (${SELLER}).`,
    );
    expect(buyer?.text).not.toContain('Telegram');
  });

  it('injection attempts come out escaped or stripped, and add no header or recipient', async () => {
    const t = createMailTransport(settings());
    for (const m of outgoing(evilFacts, 'order_confirmation', 'ord\r\nBcc: x@evil.test')) await t.send(m);
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(r.rcpt).toHaveLength(1);
      expect(r.mail.bcc).toBeUndefined();
      expect(r.mail.headers.has('x-injected')).toBe(false);
      expect(r.mail.subject).not.toMatch(/[\r\n]/);
      expect(r.mail.subject).toContain("Puffer</td><script>alert('p')</script> X-Injected: 1"); // plain text subject, one line
      expect(r.mail.html).not.toMatch(/<script|<img|<iframe|<b>/i);
      expect(r.mail.html).toContain('&lt;script&gt;');
      expect(r.mail.headers.get('x-claim-order')).toBe('ord Bcc: x@evil.test');
    }
    // The buyer's name, bounded (letters, spaces, apostrophes, hyphens; 40 at most): nothing else of it.
    expect(addr(received[1]?.mail.to)?.name).toBe("Eve O'Hara script alert script Bcc victi");
  });

  it('a buyer address with CR/LF is refused permanently before any connection', async () => {
    const t = createMailTransport(settings());
    const [, buyer] = outgoing(walletFacts);
    await expect(
      t.send({ ...buyer!, to: 'ada@example.com\r\nRCPT TO:<x@evil.test>' }),
    ).rejects.toBeInstanceOf(PermanentMailError);
    expect(received).toHaveLength(0);
  });

  it('5xx from the server is permanent; an unreachable server is retryable', async () => {
    rejectRcpt = SELLER;
    const t = createMailTransport(settings());
    const [seller] = outgoing(walletFacts);
    await expect(t.send(seller!)).rejects.toBeInstanceOf(PermanentMailError);
    const down = createMailTransport({ ...settings(), smtpUrl: 'smtp://127.0.0.1:1' });
    const err = await down.send(seller!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PermanentMailError);
  });
});
