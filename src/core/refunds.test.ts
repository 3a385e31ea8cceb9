import { describe, expect, it } from 'vitest';
import { defaultRefundTo, moneyFactsOf, overpaidOf, owedOf, refundLimits, type OwedInput } from './refunds';

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

describe('refunds follow the money: each sender, at most what they paid beyond what the order needed', () => {
  const AMOUNT = 100_000_000n;
  const DUST = 1_000_000n;
  // The buyer overpaid by half in the completing transfer; an outsider then sent 1 base unit to the reference.
  const attacked: OwedInput = {
    status: 'paid',
    amountBaseUnits: AMOUNT,
    dustBaseUnits: DUST,
    payments: [
      { role: 'payment', receivedBaseUnits: 150_000_000n, payer: 'buyer' },
      { role: 'extra', receivedBaseUnits: 1n, payer: 'outsider' },
    ],
    refunds: [],
  };

  it('owes the outsider of dust nothing, and the overpaying buyer their over-amount', () => {
    const limits = refundLimits(attacked, 'overpaid');
    expect(limits.get('buyer')).toMatchObject({ owedBaseUnits: 50_000_000n, limitBaseUnits: 50_000_000n });
    expect(limits.get('outsider')).toMatchObject({
      paidBaseUnits: 1n,
      owedBaseUnits: 0n,
      limitBaseUnits: 0n,
    });
    // Against the extra payment too: the outsider's dust is no money owed.
    expect(refundLimits(attacked, 'extra_payment').get('outsider')?.limitBaseUnits).toBe(0n);
    // The default goes to the buyer, whatever order the payers come in.
    const senders = [...limits].map(([key, s]) => ({ key, ...s })).reverse();
    expect(defaultRefundTo(senders)?.key).toBe('buyer');
    // In all: the dust is not owed, and raises no exception.
    expect(owedOf(attacked).owedBaseUnits).toBe(50_000_000n);
    expect(moneyFactsOf(attacked)).toEqual({ hasExtra: false, overpaid: true });
  });

  it('an outsider who sent real money beyond the need is owed exactly that, never the buyer’s over-amount', () => {
    const o: OwedInput = {
      ...attacked,
      payments: [attacked.payments[0]!, { role: 'extra', receivedBaseUnits: 2_000_000n, payer: 'outsider' }],
    };
    const limits = refundLimits(o, 'extra_payment');
    expect(limits.get('outsider')?.limitBaseUnits).toBe(2_000_000n);
    expect(limits.get('buyer')?.limitBaseUnits).toBe(50_000_000n);
    // A refund to the buyer counts against the buyer only.
    const after = refundLimits(
      { ...o, refunds: [{ amountBaseUnits: 50_000_000n, payer: 'buyer' }] },
      'overpaid',
    );
    expect(after.get('buyer')?.limitBaseUnits).toBe(0n);
    expect(after.get('outsider')?.limitBaseUnits).toBe(2_000_000n);
  });

  it('an outsider who helped pay the amount is owed nothing while the order ships, all they sent when it goes back', () => {
    const o: OwedInput = {
      status: 'paid',
      amountBaseUnits: AMOUNT,
      dustBaseUnits: DUST,
      payments: [
        { role: 'partial', receivedBaseUnits: 10_000_000n, payer: 'outsider' },
        { role: 'payment', receivedBaseUnits: 95_000_000n, payer: 'buyer' },
      ],
      refunds: [],
    };
    expect(refundLimits(o, 'overpaid').get('outsider')?.limitBaseUnits).toBe(0n);
    expect(refundLimits(o, 'overpaid').get('buyer')?.limitBaseUnits).toBe(5_000_000n);
    const cancelled = refundLimits({ ...o, status: 'cancelled' }, 'cancel_requested');
    expect(cancelled.get('outsider')?.limitBaseUnits).toBe(10_000_000n);
    expect(cancelled.get('buyer')?.limitBaseUnits).toBe(95_000_000n);
  });

  it('dust never makes an exception or a debt: an extra or an over-amount below the threshold', () => {
    const o: OwedInput = {
      status: 'paid',
      amountBaseUnits: AMOUNT,
      dustBaseUnits: DUST,
      payments: [
        { role: 'payment', receivedBaseUnits: AMOUNT + 999_999n, payer: 'buyer' },
        { role: 'extra', receivedBaseUnits: 999_999n, payer: 'outsider' },
      ],
      refunds: [],
    };
    expect(moneyFactsOf(o)).toEqual({ hasExtra: false, overpaid: false });
    expect(owedOf(o).owedBaseUnits).toBe(0n);
    // Cancelled, the whole order goes back, but not the dust.
    expect(owedOf({ ...o, status: 'cancelled' }).owedBaseUnits).toBe(AMOUNT + 999_999n);
    expect(
      refundLimits({ ...o, status: 'cancelled' }, 'cancel_requested').get('outsider')?.limitBaseUnits,
    ).toBe(0n);
  });

  it('a refund closed the order: everything after goes back too, and what came back counts', () => {
    // Underpaid 90 %, the vendor returned it (closing the order), then the buyer sent the 10 % "top-up".
    const o: OwedInput = {
      status: 'underpaid',
      amountBaseUnits: AMOUNT,
      dustBaseUnits: DUST,
      closed: true,
      payments: [
        { role: 'partial', receivedBaseUnits: 90_000_000n, payer: 'buyer' },
        { role: 'extra', receivedBaseUnits: 10_000_000n, payer: 'buyer' },
      ],
      refunds: [{ amountBaseUnits: 90_000_000n, payer: 'buyer' }],
    };
    expect(owedOf(o)).toMatchObject({ owedBaseUnits: 100_000_000n, remainingBaseUnits: 10_000_000n });
    expect(refundLimits(o, 'extra_payment').get('buyer')?.limitBaseUnits).toBe(10_000_000n);
    expect(moneyFactsOf(o).hasExtra).toBe(true);
  });

  it('refunds recorded before senders were count against every sender', () => {
    const o: OwedInput = { ...attacked, refunds: [{ amountBaseUnits: 20_000_000n, payer: null }] };
    expect(refundLimits(o, 'overpaid').get('buyer')?.limitBaseUnits).toBe(30_000_000n);
  });
});
