/**
 * The paid state of a purchase, as a buyer sees it (src/web/checkout/shared/Receipt.tsx): "Paid", the short order
 * number, the amount with separators, a 44 px button to the order page, and no bad news about stock.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export async function expectReceipt(page: Page, orderNumber: string, amount: string): Promise<void> {
  const receipt = page.getByTestId('receipt');
  await receipt.waitFor({ timeout: 30_000 });
  expect(await receipt.getByRole('heading', { level: 2 }).textContent()).toMatch(/^Paid/);
  expect(await receipt.getByTestId('order-number').textContent()).toBe(orderNumber);
  expect(orderNumber).toMatch(/^[0-9A-F]{8}$/);
  expect(await receipt.getByTestId('receipt-amount').textContent()).toBe(amount);
  expect(amount).toMatch(/^\d{1,3}(,\d{3})*\.\d{6} \$CLAIM$/);
  const button = receipt.getByTestId('order-page-link');
  const box = await button.boundingBox();
  expect(box?.height ?? 0).toBeGreaterThanOrEqual(44);
  // The buyer's own purchase brings no sold-out banner and no "that was the last one".
  expect(
    await page
      .getByTestId('stock')
      .filter({ hasText: /sold out/i })
      .count(),
  ).toBe(0);
  expect(await page.getByText(/that was the last one/i).count()).toBe(0);
}
