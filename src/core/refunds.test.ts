import { describe, expect, it } from 'vitest';
import { overpaidOf, owedOf, type OwedInput } from './refunds';

const order = (more: Partial<OwedInput>): OwedInput => ({
  status: 'paid',
  amountBaseUnits: 100_000_000n,
  payments: [{ role: 'payment', receivedBaseUnits: 100_000_000n }],
  refunds: [],
  ...more,
});

describe('owedOf: what goes back to the payer', () => {
  it('owes nothing for an order paid exactly', () => {
    expect(owedOf(order({}))).toEqual({
      receivedBaseUnits: 100_000_000n,
      owedBaseUnits: 0n,
      refundedBaseUnits: 0n,
      remainingBaseUnits: 0n,
      refundableBaseUnits: 100_000_000n,
    });
  });

  it('owes every extra payment after the full amount', () => {
    const o = owedOf(
      order({
        payments: [
          { role: 'payment', receivedBaseUnits: 100_000_000n },
          { role: 'extra', receivedBaseUnits: 5_000_000n },
          { role: 'extra', receivedBaseUnits: 2_500_000n },
        ],
      }),
    );
    expect(o.owedBaseUnits).toBe(7_500_000n);
    expect(o.remainingBaseUnits).toBe(7_500_000n);
  });

  it('owes what the completing transfer paid above the amount (overpaid)', () => {
    const o = owedOf(
      order({
        payments: [
          { role: 'partial', receivedBaseUnits: 40_000_000n },
          { role: 'payment', receivedBaseUnits: 70_000_000n },
        ],
      }),
    );
    expect(o.owedBaseUnits).toBe(10_000_000n);
  });

  it('owes everything received when the order is oversold, extras included', () => {
    const o = owedOf(
      order({
        status: 'oversold',
        payments: [
          { role: 'payment', receivedBaseUnits: 100_000_000n },
          { role: 'extra', receivedBaseUnits: 1_000_000n },
        ],
      }),
    );
    expect(o.owedBaseUnits).toBe(101_000_000n);
  });

  it('adds partial refunds up, and never owes below zero', () => {
    const base = order({
      status: 'oversold',
      refunds: [{ amountBaseUnits: 30_000_000n }, { amountBaseUnits: 20_000_000n }],
    });
    expect(owedOf(base)).toMatchObject({
      refundedBaseUnits: 50_000_000n,
      remainingBaseUnits: 50_000_000n,
      refundableBaseUnits: 50_000_000n,
    });
    const more = owedOf({ ...base, refunds: [...base.refunds, { amountBaseUnits: 60_000_000n }] });
    expect(more.remainingBaseUnits).toBe(0n);
    expect(more.refundableBaseUnits).toBe(0n);
  });

  it('owes nothing by rule for an underpaid order, but all of it may be returned', () => {
    const o = owedOf(
      order({ status: 'underpaid', payments: [{ role: 'partial', receivedBaseUnits: 30_000_000n }] }),
    );
    expect(o.owedBaseUnits).toBe(0n);
    expect(o.refundableBaseUnits).toBe(30_000_000n);
  });

  it('counts only extras for an unpriced order', () => {
    const o = owedOf(
      order({
        amountBaseUnits: null,
        payments: [
          { role: 'payment', receivedBaseUnits: 9_000_000n },
          { role: 'extra', receivedBaseUnits: 1n },
        ],
      }),
    );
    expect(o.owedBaseUnits).toBe(1n);
  });

  it('owes everything received once the seller cancelled the order (the buyer asked), extras and over-amount included', () => {
    const o = owedOf(
      order({
        status: 'cancelled',
        payments: [
          { role: 'payment', receivedBaseUnits: 102_000_000n },
          { role: 'extra', receivedBaseUnits: 1_000_000n },
        ],
      }),
    );
    expect(o.owedBaseUnits).toBe(103_000_000n);
    expect(o.remainingBaseUnits).toBe(103_000_000n);
  });

  it('owes everything received for a cancelled order that was only partly paid', () => {
    const o = owedOf(
      order({ status: 'cancelled', payments: [{ role: 'partial', receivedBaseUnits: 30_000_000n }] }),
    );
    expect(o.owedBaseUnits).toBe(30_000_000n);
  });

  it('a cancelled order is settled by partial refunds adding up to all it received', () => {
    const base = order({
      status: 'cancelled',
      refunds: [{ amountBaseUnits: 60_000_000n }],
    });
    expect(owedOf(base).remainingBaseUnits).toBe(40_000_000n);
    const all = owedOf({ ...base, refunds: [...base.refunds, { amountBaseUnits: 40_000_000n }] });
    expect(all).toMatchObject({ remainingBaseUnits: 0n, refundableBaseUnits: 0n });
  });

  it('the over-amount of an overpaid order goes down with its refunds, and an extra adds to it', () => {
    const overpaid = order({ payments: [{ role: 'payment', receivedBaseUnits: 103_000_000n }] });
    expect(owedOf(overpaid)).toMatchObject({ owedBaseUnits: 3_000_000n, remainingBaseUnits: 3_000_000n });
    expect(owedOf({ ...overpaid, refunds: [{ amountBaseUnits: 1_000_000n }] }).remainingBaseUnits).toBe(
      2_000_000n,
    );
    expect(
      owedOf({
        ...overpaid,
        payments: [...overpaid.payments, { role: 'extra', receivedBaseUnits: 500_000n }],
      }).owedBaseUnits,
    ).toBe(3_500_000n);
  });
});

describe('overpaidOf: above the amount in the counted transfers', () => {
  it('is what the counted transfers paid above the amount, never an extra, never below zero', () => {
    expect(overpaidOf(100n, [{ role: 'payment', receivedBaseUnits: 103n }])).toBe(3n);
    expect(
      overpaidOf(100n, [
        { role: 'partial', receivedBaseUnits: 60n },
        { role: 'top_up', receivedBaseUnits: 45n },
      ]),
    ).toBe(5n);
    expect(
      overpaidOf(100n, [
        { role: 'payment', receivedBaseUnits: 100n },
        { role: 'extra', receivedBaseUnits: 9n },
      ]),
    ).toBe(0n);
    expect(overpaidOf(100n, [{ role: 'partial', receivedBaseUnits: 40n }])).toBe(0n);
    expect(overpaidOf(null, [{ role: 'payment', receivedBaseUnits: 5n }])).toBe(0n);
  });
});
