import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PAID_NOTHING_MORE } from '../../src/core/email-payload';
import { escapeHtml, headerSafe, renderEmail, subjectFor } from '../../src/server/mail/templates';
import { evilFacts, outgoing, qrFacts, walletFacts } from '../support/mail-fixtures';

describe('mail templates', () => {
  it('subjects per kind and role', () => {
    const [seller, buyer] = outgoing(walletFacts);
    expect(subjectFor(seller!)).toBe('New order: BathSalts Flower (zips)');
    expect(subjectFor(buyer!)).toBe('Your $CLAIM order: BathSalts Flower (zips)');
    const [paid] = outgoing(qrFacts, 'payment_received');
    expect(subjectFor(paid!)).toBe('Payment received: Strawberry Fritter Rosin');
  });

  it('payment_underpaid: the seller, then the buyer with the link for the missing amount', () => {
    const topUp = 'solana:Rcpt?amount=100&spl-token=Mint&reference=Ref&message=Top-up';
    const facts = {
      ...qrFacts,
      amountBaseUnits: 200_000_000n,
      receivedBaseUnits: 100_000_000n,
      solanaPayUrl: topUp,
    };
    const mails = outgoing(facts, 'payment_underpaid');
    expect(mails.map((m) => m.role)).toEqual(['seller', 'buyer']);
    const [short, buyer] = mails;
    expect(subjectFor(short!)).toBe('Payment short of the total: Strawberry Fritter Rosin');
    const { text, html } = renderEmail(short!);
    expect(text).toContain('less than the order total');
    expect(text).toContain('Total ($CLAIM): 200.000000\nReceived ($CLAIM): 100.000000');
    expect(html).toContain('Received ($CLAIM)');
    expect(subjectFor(buyer!)).toBe('Your payment is short of the total: Strawberry Fritter Rosin');
    const mine = renderEmail(buyer!);
    expect(mine.text).toContain('Pay the missing amount with the Solana Pay link below');
    expect(mine.text).toContain(`Solana Pay link: ${topUp}`);
    expect(mine.html).toContain(
      `<a href="${topUp.replace(/&/g, '&amp;')}" style="display:inline-block;padding:12px 18px`,
    );
  });

  it('a fully paid order: the payment link field says there is nothing more to pay, never a link', () => {
    const facts = { ...qrFacts, solanaPayUrl: PAID_NOTHING_MORE, receivedBaseUnits: 200_000_000n };
    for (const m of outgoing(facts, 'order_confirmation', 'ord_paid', true)) {
      expect(m.payload.solanaPayURL).toBe('Paid — nothing more to pay');
      const { text, html } = renderEmail(m);
      expect(text).toContain('Solana Pay link: Paid — nothing more to pay');
      expect(text).not.toContain('solana:');
      expect(html).not.toContain('solana:');
    }
  });

  it('text body carries every payload field', () => {
    const [seller] = outgoing(qrFacts, 'order_confirmation', 'ord_9', false);
    const { text } = renderEmail(seller!);
    for (const line of [
      'Hello Seller,',
      'Product: Strawberry Fritter Rosin',
      'Quantity: 2',
      'Total (USD): $100.00',
      'Total ($CLAIM): N/A',
      'Name: Grace Hopper',
      'E-mail: grace@example.com',
      'Shipping address: 1 Navy Way, Apt 2, Arlington, VA, 22202',
      `Solana Pay link: ${qrFacts.solanaPayUrl}`,
      'Order: ord_9',
    ]) {
      expect(text).toContain(line);
    }
    // Written before a payment may be recorded: it never claims a payment was not seen.
    expect(text).not.toContain('not been seen');
    expect(text).toContain('"Payment received" message follows');
  });

  it('links the transactions, and the order page for the buyer only; distinct late and missing-details notes', () => {
    const facts = {
      ...qrFacts,
      orderNumber: 'ABCD1234',
      orderUrl: 'https://shop.test/order/0123456789abcdef0123456789abcdef',
      transactionUrls: [
        'https://explorer.solana.com/tx/sig1?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899',
      ],
      receivedBaseUnits: 3_000_000n,
      usdAtPaymentCents: 1234,
    };
    const [seller, buyer] = outgoing(facts, 'paid_late');
    expect(subjectFor(seller!)).toBe(
      'Paid after the quote expired — review before shipping: Strawberry Fritter Rosin',
    );
    const s = renderEmail(seller!);
    expect(s.text).toContain(
      'USD value at the time of payment was $12.34 against the order total of $100.00',
    );
    expect(s.text).not.toContain(facts.orderUrl);
    expect(s.html).not.toContain(facts.orderUrl);
    expect(s.html).toContain('<a href="https://explorer.solana.com/tx/sig1?cluster=custom&amp;customUrl=');
    const b = renderEmail(buyer!);
    expect(b.text).toContain('the seller will review it and confirm');
    expect(b.text).toContain(`Order page: ${facts.orderUrl}`);
    expect(b.html).toContain(`<a href="${facts.orderUrl}" style="display:inline-block;padding:12px 18px`);
    const [missing] = outgoing({ ...facts, shipping: undefined }, 'details_missing');
    expect(subjectFor(missing!)).toBe('Paid, shipping details missing: Strawberry Fritter Rosin');
    expect(renderEmail(missing!).text).toContain('Received ($CLAIM): 3.000000');
  });

  it('escapes every field in HTML and strips CR/LF from the subject', () => {
    for (const m of outgoing(evilFacts)) {
      const r = renderEmail(m);
      expect(r.subject).not.toMatch(/[\r\n]/);
      expect(r.html).not.toMatch(/<script|<img|<iframe|<b>|onerror="/i);
      if (m.role === 'seller') {
        expect(r.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
        expect(r.html).toContain('&quot;quoted&quot; &amp; &#39;single&#39;');
        expect(r.html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
      } else {
        // The buyer's copy: a bounded name, and no address text at all.
        expect(r.text).toContain('Hello Eve O&#39;Hara'.replace('&#39;', "'"));
        expect(r.html).not.toContain('onerror');
        expect(r.html).not.toContain('quoted');
      }
      // the malicious pay link is not turned into a link
      expect(r.html).not.toContain('<a href');
      expect(r.text).not.toMatch(/\r|\u2028/);
      expect(r.text.split('\n').some((l) => /^(Bcc|Subject|X-Injected):/i.test(l))).toBe(false);
    }
  });

  it('headerSafe never leaves control characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        const h = headerSafe(s);
        // eslint-disable-next-line no-control-regex
        expect(h).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
        expect(h.length).toBeLessThanOrEqual(200);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(escapeHtml(s)).not.toMatch(/[<>"']/);
      }),
    );
  });
});
