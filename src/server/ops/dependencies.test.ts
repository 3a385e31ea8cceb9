import { describe, expect, it } from 'vitest';
import { createPaymentCheck, plainAge, watcherLagPart, webhooksPartOf } from './dependencies';
import type { WebhookHealth } from '../webhooks/health';
import type { WatcherLag } from './probes';

const lag = (over: Partial<WatcherLag>): WatcherLag => ({
  watching: true,
  lagSeconds: 3,
  caughtUpAt: new Date('2026-01-01T00:00:00Z'),
  ...over,
});

describe('watcherLagPart', () => {
  it('ok within the lag limit, failing past it, degraded while behind with payments on time or catching up', async () => {
    const part = (l: WatcherLag | Error) =>
      watcherLagPart(
        {
          watcherLag: async () => {
            if (l instanceof Error) throw l;
            return l;
          },
        },
        60,
      );
    expect(await part(lag({}))).toMatchObject({ status: 'ok', detail: 'Caught up 3 s ago.' });
    expect(await part(lag({ watching: false }))).toMatchObject({
      status: 'ok',
      detail: 'Caught up 3 s ago (another instance holds the watch).',
    });
    const failing = await part(lag({ lagSeconds: 300 }));
    expect(failing.status).toBe('failing');
    expect(failing.detail).toBe(
      'Last caught up 5 minutes ago (the limit is 60 s): payments are not being seen. Buyers can still order; their payments show once the watcher catches up.',
    );
    expect(
      await part(lag({ lagSeconds: 300, backlog: { transfers: 40, paymentsOnTime: true } })),
    ).toMatchObject({ status: 'degraded', behindTransfers: 40 });
    expect(
      (await part(lag({ lagSeconds: 300, backlog: { transfers: 40, paymentsOnTime: false } }))).status,
    ).toBe('failing');
    expect(
      await part(
        lag({
          lagSeconds: 300,
          caughtUpAt: null,
          catchUp: { catchingUp: true, behindSeconds: 900, progressing: true },
        }),
      ),
    ).toMatchObject({ status: 'degraded', catchingUp: true, catchUpBehindSeconds: 900 });
    expect(
      (
        await part(
          lag({
            lagSeconds: 300,
            caughtUpAt: null,
            catchUp: { catchingUp: true, behindSeconds: 900, progressing: false },
          }),
        )
      ).status,
    ).toBe('failing');
    expect(await part(new Error('database down'))).toMatchObject({
      status: 'failing',
      detail: "The payment watcher's progress cannot be read from the database.",
    });
    expect(await watcherLagPart({}, 60)).toMatchObject({ status: 'ok', watching: null, lagSeconds: null });
  });

  it('says ages in plain words', () => {
    expect([plainAge(4), plainAge(119), plainAge(600), plainAge(4 * 3600)]).toEqual([
      '4 s',
      '119 s',
      '10 minutes',
      '4 hours',
    ]);
  });
});

describe('createPaymentCheck', () => {
  it('answers from the last check at once, delayed while the RPC is down, and checks again after the interval', async () => {
    let t = 0;
    let up = true;
    let calls = 0;
    const check = createPaymentCheck(
      {
        rpcReachable: async () => {
          calls++;
          return up;
        },
      },
      { refreshMs: 5_000, now: () => t },
    );
    expect(check()).toBe('ok'); // nothing known yet: not reported as delayed
    await new Promise((r) => setImmediate(r));
    up = false;
    t = 1_000;
    expect(check()).toBe('ok'); // within the interval: the last answer, no new check
    expect(calls).toBe(1);
    t = 6_000;
    check(); // starts a check, answers the last one meanwhile
    await new Promise((r) => setImmediate(r));
    expect(check()).toBe('delayed');
    expect(calls).toBe(2);
    up = true;
    t = 12_000;
    check();
    await new Promise((r) => setImmediate(r));
    expect(check()).toBe('ok');
  });

  it('delayed while the watcher part is failing, though the RPC answers', async () => {
    const check = createPaymentCheck(
      { rpcReachable: async () => true, watcherLag: async () => lag({ lagSeconds: 500 }) },
      { watcherMaxLagSeconds: 60, now: () => 0 },
    );
    check();
    await new Promise((r) => setImmediate(r));
    expect(check()).toBe('delayed');
  });
});

describe('webhooksPartOf', () => {
  const health = (
    over: Partial<Omit<WebhookHealth, 'endpoints'>> & { endpoints?: Partial<WebhookHealth['endpoints']> },
  ): WebhookHealth => ({
    longestFailingSeconds: null,
    waiting: 0,
    oldestWaitingSeconds: null,
    overdueSeconds: null,
    ...over,
    endpoints: {
      accepting: 0,
      failing: 0,
      pausedFailing: 0,
      pausedByVendor: 0,
      disabled: 0,
      ...over.endpoints,
    },
  });

  it('ok with no endpoint, or every active one accepting and nothing overdue; the counts beside', () => {
    expect(webhooksPartOf(health({}))).toMatchObject({ status: 'ok', detail: 'No webhook endpoints.' });
    expect(
      webhooksPartOf(
        health({
          endpoints: { accepting: 3, pausedByVendor: 1, disabled: 1 },
          waiting: 2,
          oldestWaitingSeconds: 45,
          overdueSeconds: 3,
        }),
      ),
    ).toEqual({
      status: 'ok',
      detail:
        '3 endpoints accepting events (1 paused by its vendor, 1 disabled by a 410 Gone); 2 events waiting, the oldest for 45 s.',
      endpoints: { accepting: 3, failing: 0, pausedFailing: 0, pausedByVendor: 1, disabled: 1 },
      longestFailingSeconds: null,
      waiting: 2,
      oldestWaitingSeconds: 45,
      overdueSeconds: 3,
    });
  });

  it('degraded while endpoints fail or were paused for failing, or events for working ones are overdue', () => {
    expect(
      webhooksPartOf(
        health({
          endpoints: { accepting: 4, failing: 1, pausedFailing: 1 },
          longestFailingSeconds: 3 * 3600,
          waiting: 14,
          oldestWaitingSeconds: 3 * 3600,
        }),
      ),
    ).toMatchObject({
      status: 'degraded',
      detail:
        '1 of 5 active endpoints failing, the longest for 3 hours; 1 endpoint paused after days of failures; 14 events waiting, the oldest for 3 hours. Deliveries retry for three days, so nothing is lost meanwhile; each vendor sees its endpoints and their attempts in the seller console.',
    });
    const lagging = webhooksPartOf(
      health({ endpoints: { accepting: 2 }, waiting: 1, oldestWaitingSeconds: 720, overdueSeconds: 720 }),
    );
    expect(lagging.status).toBe('degraded');
    expect(lagging.detail).toContain('events for working endpoints overdue by 12 minutes: the sender lags');
    // Overdue under ten minutes is the sender at work, not a lag.
    expect(
      webhooksPartOf(
        health({ endpoints: { accepting: 2 }, waiting: 1, oldestWaitingSeconds: 500, overdueSeconds: 500 }),
      ).status,
    ).toBe('ok');
  });
});
