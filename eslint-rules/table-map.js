/**
 * The table → module map of the store: each table has one writer (docs/decisions/server-store.md, "One writer per table"). Checked by
 * `local/table-owners` (./table-owners.js) on every file of src/; test/unit/table-owners.test.ts shows it refuses
 * a planted writer. A new table is added here with its owner before anything writes it.
 */
export const TABLE_OWNERS = {
  owners: {
    orders: ['src/server/orders'],
    order_history: ['src/server/orders'],
    idempotency_keys: ['src/server/orders'],
    payments: ['src/server/orders'],
    refunds: ['src/server/orders'],
    seller_actions: ['src/server/orders'],
    order_unreadable_payments: ['src/server/orders'],
    outbox: ['src/server/mail'],
    mail_recipients: ['src/server/mail'],
    stock: ['src/server/stock'],
    reservations: ['src/server/stock'],
    stock_changes: ['src/server/stock'],
    price_history: ['src/server/price'],
    price_alerts: ['src/server/price'],
    price_current: ['src/server/price'],
    payment_scan_cursors: ['src/server/payments'],
    payment_scan_judged: ['src/server/payments'],
    payment_scan_unmatched: ['src/server/payments'],
    payment_watch_lease: ['src/server/ops/lease.ts'],
    payment_watch_progress: ['src/server/payments'],
    payment_unreadable: ['src/server/payments'],
    seller_nonces: ['src/server/seller'],
    seller_sessions: ['src/server/seller'],
    rate_limits: ['src/server/ops/rate-limit-store.ts'],
    rpc_budget_slots: ['src/server/payments/fleet-budget.ts'],
    drop_line: ['src/server/stock'],
    webhook_endpoints: ['src/server/webhooks'],
    webhook_deliveries: ['src/server/webhooks'],
    webhook_attempts: ['src/server/webhooks'],
    webhook_notes: ['src/server/webhooks'],
  },
  anyTable: [
    'src/server/store/migrations.ts',
    'src/server/store/migrations-early.ts',
    'src/server/store/migrations-later.ts',
    'src/server/store/migrations-fleet.ts',
    'src/server/store/migrations-drops.ts',
    'src/server/store/migrations-webhooks.ts',
  ],
};
