/**
 * The seller console's webhooks section in a browser (issue 35): a vendor adds an endpoint (a real HTTPS receiver
 * on loopback that verifies with `standardwebhooks`), copies the secret shown once, sends a test event and sees
 * it delivered in the log, resends it (same webhook-id), and sees a plain-words note for a failing endpoint. The
 * secret is in no later page or API answer. At a desk and on a 390 px phone: nothing scrolls sideways, the
 * buttons are at least 44 px tall, axe-core finds no serious problem.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { unexpectedErrors } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { testResolver } from '../support/webhook-resolver';

let receiver: Receiver;
const suite = browserSuite({
  env: { WEBHOOKS_ALLOW_PRIVATE: '1' },
  before: async () => {
    receiver = await startReceiver();
    return {
      overrides: {
        webhooks: { resolve: testResolver(), extraCa: [receiver.ca], baseDelayMs: 200, maxDelayMs: 400 },
      },
    };
  },
  after: async () => {
    await receiver?.close();
  },
});

async function openWebhooks(page: Page): Promise<void> {
  await page.goto('/seller');
  await page.getByRole('button', { name: 'Sign in as demo vendor' }).click();
  await page.getByText('Signed in as').getByText('Coopers Glass').waitFor();
  await page.getByRole('button', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
}

async function checkLayout(page: Page, width: number): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  const small = await page
    .locator('.webhooks-page button')
    .evaluateAll((els) =>
      els
        .map((e) => ({ text: e.textContent ?? '', h: e.getBoundingClientRect().height }))
        .filter((b) => b.h > 0 && b.h < 44),
    );
  expect(small).toEqual([]);
  const axe = await new AxeBuilder({ page }).include('.webhooks-page').analyze();
  const bad = axe.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.nodes.map((x) => x.target.join(' ')).join(', ')})`);
  expect(bad).toEqual([]);
}

describe('webhooks in the seller console', () => {
  it('add an endpoint, its secret once, a test event delivered and resent, a failing note; desk and phone', async () => {
    const { page, errors, close } = await suite.open({
      viewport: { width: 1280, height: 900 },
    });
    const answers: string[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/api/seller/webhooks'))
        void r.text().then(
          (t) => answers.push(t),
          () => undefined,
        );
    });
    await openWebhooks(page);
    await page.getByLabel('Endpoint URL').fill(`${receiver.origin}/console`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('webhook-secret').innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    receiver.secrets('/console', secret);
    await checkLayout(page, 1280);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.content()).not.toContain(secret);

    // A test event, verified at the receiver, and in the log.
    const card = page.locator('.webhook-endpoint', { hasText: '/console' });
    await card.getByRole('button', { name: 'Send test event' }).click();
    const [first] = await receiver.waitFor('/console', 1);
    expect(first?.verified).toBe(true);
    await card.getByRole('button', { name: 'Show deliveries' }).click();
    await expect
      .poll(
        async () => {
          await card.getByRole('button', { name: 'Refresh' }).click();
          return card.locator('.webhook-log tbody tr').first().innerText();
        },
        { timeout: 15_000 },
      )
      .toContain('Delivered');
    await card.getByRole('button', { name: /^Resend Test event/ }).click();
    const both = await receiver.waitFor('/console', 2);
    expect(both[1]?.id).toBe(first?.id);
    expect(both[1]?.verified).toBe(true);

    // A failing endpoint gets a plain-words note.
    await page.getByLabel('Endpoint URL').fill(`${receiver.origin}/failing`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: 'I have saved it' }).click();
    receiver.answer('/failing', 500, 500, 500, 500, 500, 500, 500, 500);
    const failing = page.locator('.webhook-endpoint', { hasText: '/failing' });
    await failing.getByRole('button', { name: 'Send test event' }).click();
    await receiver.waitFor('/failing', 1);
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Stock' }).click();
          await page.getByRole('button', { name: 'Webhooks' }).click();
          return failing.locator('.webhook-trouble').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    expect(await failing.locator('.webhook-trouble').innerText()).toContain(
      'has not accepted an event since',
    );

    // The secret is in no page and in no answer after the one that created it.
    await page.reload();
    await page.getByRole('button', { name: 'Webhooks' }).click();
    await page.locator('.webhook-endpoint').first().waitFor();
    expect(await page.content()).not.toContain(secret.slice(6));
    expect(answers.filter((t) => t.includes(secret.slice(6)))).toHaveLength(1);

    // On a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page
      .locator('.webhook-endpoint', { hasText: '/console' })
      .getByRole('button', { name: 'Show deliveries' })
      .click();
    await page.locator('.webhook-log').first().waitFor();
    await checkLayout(page, 390);
    // The console asks who is signed in before the demo sign-in: a 401 then is expected.
    expect(unexpectedErrors(errors, [/\/api\/seller\/me$/])).toEqual([]);
    await close();
  });
});
