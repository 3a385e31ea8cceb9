/**
 * Helpers for the payments integration tests: real transactions on the local SVM through @solana/web3.js and
 * spl-token, the way wallets build them (transferChecked with the Solana Pay reference appended read-only).
 */
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  PublicKey,
  Transaction,
  TransactionInstruction,
  type Signer,
} from '@solana/web3.js';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToCheckedInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { SystemProgram } from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import type { RunningPayments } from '../../src/server/payments/index.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalog } from '../../catalog/index.js';
import { createQuote } from '../../src/server/orders/quotes.js';
import { createWatchLanes, type WatchLanes } from '../../src/server/payments/lanes.js';
import { createOrderService, type OrderService, type WatchedOrder } from '../../src/server/orders/service.js';
import { loadSettings, type Settings } from '../../src/server/settings/index.js';
import { openStore, type Store } from '../../src/server/store/store.js';
import { createStockRepository } from '../../src/server/stock/repository.js';
import { addStock } from '../support/stock.js';

export const DECIMALS = 6;
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

export async function faucet(net: Localnet, address: PublicKey, sol: number, claim: number): Promise<void> {
  const res = await fetch(`${net.rpcUrl}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address: address.toBase58(), sol, claim }),
  });
  if (!res.ok) throw new Error(`faucet ${res.status}: ${await res.text()}`);
}

export async function send(
  connection: Connection,
  ixs: TransactionInstruction[],
  signers: Signer[],
  opts: { skipPreflight?: boolean } = {},
): Promise<string> {
  const payer = signers[0];
  if (!payer) throw new Error('no fee payer');
  const latest = await connection.getLatestBlockhash('confirmed');
  const tx = new Transaction({ feePayer: payer.publicKey, ...latest }).add(...ixs);
  tx.sign(...signers);
  const signature = await connection.sendRawTransaction(tx.serialize(), {
    skipPreflight: opts.skipPreflight ?? false,
  });
  // Wait for `confirmed` by polling (no client WebSocket left behind when a test stops a node).
  const status = await waitFor('transaction to be confirmed', async () => {
    const s = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true }))
      .value[0];
    return s?.confirmationStatus === 'confirmed' || s?.confirmationStatus === 'finalized' ? s : undefined;
  });
  // A transaction meant to fail (skipPreflight) lands with its error; any other must succeed.
  if (status.err && !opts.skipPreflight) throw new Error(`transaction failed: ${JSON.stringify(status.err)}`);
  return signature;
}

export interface PayArgs {
  from: Keypair;
  recipientOwner: PublicKey;
  mint: PublicKey;
  amount: bigint;
  references: PublicKey[];
  /** Create the recipient's associated token account in the same transaction (idempotent). */
  createRecipientAta?: boolean;
  before?: TransactionInstruction[];
  after?: TransactionInstruction[];
  skipPreflight?: boolean;
}

/** The wallet transfer: transferChecked from the payer's ATA to the recipient's ATA, references appended. */
export function transferIx(
  args: Pick<PayArgs, 'from' | 'recipientOwner' | 'mint' | 'amount' | 'references'>,
): TransactionInstruction {
  const source = getAssociatedTokenAddressSync(args.mint, args.from.publicKey);
  const destination = getAssociatedTokenAddressSync(args.mint, args.recipientOwner, true);
  const ix = createTransferCheckedInstruction(
    source,
    args.mint,
    destination,
    args.from.publicKey,
    args.amount,
    DECIMALS,
  );
  for (const r of args.references) ix.keys.push({ pubkey: r, isSigner: false, isWritable: false });
  return ix;
}

/** A transfer of `mint` between two owners' associated token accounts (the receiver's created if needed). */
export function ownerTransferIxs(
  mint: PublicKey,
  from: Keypair,
  to: PublicKey,
  amount: bigint,
): TransactionInstruction[] {
  const destination = getAssociatedTokenAddressSync(mint, to, true);
  return [
    createAssociatedTokenAccountIdempotentInstruction(from.publicKey, destination, to, mint),
    createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(mint, from.publicKey),
      mint,
      destination,
      from.publicKey,
      amount,
      DECIMALS,
    ),
  ];
}

export async function pay(connection: Connection, args: PayArgs): Promise<string> {
  const ixs: TransactionInstruction[] = [...(args.before ?? [])];
  if (args.createRecipientAta) {
    const ata = getAssociatedTokenAddressSync(args.mint, args.recipientOwner, true);
    ixs.push(
      createAssociatedTokenAccountIdempotentInstruction(
        args.from.publicKey,
        ata,
        args.recipientOwner,
        args.mint,
      ),
    );
  }
  ixs.push(transferIx(args), ...(args.after ?? []));
  return send(connection, ixs, [args.from], { skipPreflight: args.skipPreflight });
}

export function memoIx(text: string, signer: PublicKey): TransactionInstruction {
  return new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [{ pubkey: signer, isSigner: true, isWritable: false }],
    data: Buffer.from(text, 'utf8'),
  });
}

export function computeBudgetIxs(): TransactionInstruction[] {
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units: 200_000 }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1 }),
  ];
}

/** A second SPL mint (6 decimals) with `amount` minted to `owner`'s ATA. */
export async function createOtherMint(
  connection: Connection,
  payer: Keypair,
  owner: PublicKey,
  amount: bigint,
): Promise<PublicKey> {
  const mint = Keypair.generate();
  const lamports = await connection.getMinimumBalanceForRentExemption(MINT_SIZE);
  const ata = getAssociatedTokenAddressSync(mint.publicKey, owner);
  await send(
    connection,
    [
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        space: MINT_SIZE,
        lamports,
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMint2Instruction(mint.publicKey, DECIMALS, payer.publicKey, null),
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, ata, owner, mint.publicKey),
      createMintToCheckedInstruction(mint.publicKey, ata, payer.publicKey, amount, DECIMALS),
    ],
    [payer, mint],
  );
  return mint.publicKey;
}

/**
 * A test client's call, again after a dropped connection (a keep-alive socket the node closed just as it was
 * reused: ECONNRESET under load). Only the test's own traffic retries; the server's is the subject.
 */
export async function again<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 3 || !String((err as Error).message).includes('fetch failed')) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** A client that names itself to the localnet (`x-localnet-client`: another IP on the real network). */
export const namedClient = (net: Localnet, name: string) =>
  new Connection(net.rpcUrl, { commitment: 'confirmed', httpHeaders: { 'x-localnet-client': name } });

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface ServiceOrders {
  service: OrderService;
  /** The lanes the service was made with: a watcher started on it serves them (`startPayments({ lanes })`). */
  lanes: WatchLanes;
  store: Store;
  settings: Settings;
  /** The store's stock (seeded from the catalogue), as `npm run stock` and the seller console set it. */
  stock: ReturnType<typeof createStockRepository>;
  /** Creates a real order through a signed quote (wallet product from the catalogue, $1.00 per $CLAIM). */
  /** `pageToken`: the order page's token (its creation's `orderUrl`), which the checkout's status poll sends. */
  place(opts?: { productId?: string }): Promise<WatchedOrder & { ref: PublicKey; pageToken: string }>;
  get(orderId: string): Promise<WatchedOrder>;
  status(orderId: string): Promise<string>;
  close(): Promise<void>;
}

/** A real wallet order for one unit through a signed quote ($1.00 per $CLAIM), as the checkout makes it. */
export function placeWalletOrder(
  service: OrderService,
  settings: Settings,
  now: () => Date,
  productId: string,
  idempotencyKey: string,
) {
  const { token } = createQuote(
    { catalog, settings, priceSource: { current: () => ({ priceUsd: '1.00', fetchedAt: now() }) }, now },
    { items: [{ productId, quantity: 1 }] },
  );
  return service.createOrder(
    {
      quote: token,
      paymentMethod: 'wallet',
      shipping: {
        kind: 'international',
        fullName: 'Test Buyer',
        email: 'buyer@example.test',
        address1: '1 Test Street',
        city: 'Testville',
        stateProvince: 'TS',
        postalCode: '12345',
        country: 'Testland',
      },
    },
    idempotencyKey,
  );
}

/** The server's own OrderService on a SQLite file in a temp directory, with an injectable clock. */
export async function serviceOrders(
  net: Localnet,
  now: () => Date,
  env: Record<string, string> = {},
): Promise<ServiceOrders> {
  const keys = net.keys;
  if (!keys) throw new Error('localnet not seeded');
  const dir = mkdtempSync(join(tmpdir(), 'claim-payments-'));
  const settings = loadSettings(
    { PORT: '0', LOCALNET_PORT: String(net.port), DATABASE_URL: join(dir, 'store.sqlite'), ...env },
    {
      claimMint: keys.mint.toBase58(),
      recipients: {
        coopersglass: keys.recipients.coopersglass.toBase58(),
        gorilla: keys.recipients.gorilla.toBase58(),
      },
    },
  );
  const store = await openStore(settings.database);
  // Stock as the server has it (seeded from the catalogue); each placed order restocks its piece first.
  const stock = createStockRepository(store, catalog);
  await stock.seed(catalog, now().toISOString());
  // The watcher's lanes, handed to the order service at construction (startPayments serves them: pass `lanes`).
  const lanes = createWatchLanes();
  const service = createOrderService({ store, catalog, settings, now, stock, lanes });
  let n = 0;
  const get = async (orderId: string) => {
    const o = await service.findOrder({ orderId });
    if (!o) throw new Error(`no order ${orderId}`);
    return o;
  };
  return {
    service,
    lanes,
    store,
    settings,
    stock,
    async place(opts = {}) {
      await addStock({ stock }, opts.productId ?? 'lilac-tiptop', 1);
      const created = await placeWalletOrder(
        service,
        settings,
        now,
        opts.productId ?? 'lilac-tiptop',
        `payments-test-${process.pid}-${++n}-${Date.now()}`,
      );
      const url = created.body.orderUrl;
      return {
        ...(await get(created.body.orderId)),
        ref: new PublicKey(created.body.reference),
        pageToken: url.slice(url.lastIndexOf('/') + 1),
      };
    },
    get,
    status: async (orderId) => (await get(orderId)).status,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The attack suites' stage (one per file): a local network with the public endpoint's limits (40 ms slots), a store
 * whose quotes last 90 s as the scenarios say, an attacker and a buyer funded with SOL and $CLAIM. The watcher a test
 * starts (`stage.payments`) is stopped after it; the store and the network after the file. */
export interface AttackStage {
  net: Localnet;
  orders: ServiceOrders;
  payments: RunningPayments | undefined;
  attacker: Keypair;
  buyer: Keypair;
  buyerConnection: Connection;
  /** The glass vendor's wallet (its token account is where the dust and the payments land). */
  coopers(): PublicKey;
}

export function attackStage(): AttackStage {
  const stage = {
    attacker: Keypair.generate(),
    buyer: Keypair.generate(),
    payments: undefined,
    coopers: () => stage.net.keys!.recipients.coopersglass,
  } as AttackStage;
  beforeAll(async () => {
    stage.net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6, publicLimits: true });
    stage.buyerConnection = namedClient(stage.net, 'buyer');
    stage.orders = await serviceOrders(stage.net, () => new Date(), { QUOTE_TTL_SECONDS: '90' });
    await faucet(stage.net, stage.attacker.publicKey, 10, 1_000_000);
    await faucet(stage.net, stage.buyer.publicKey, 10, 1_000_000);
  });
  afterEach(async () => {
    await stage.payments?.stop();
    stage.payments = undefined;
  });
  afterAll(async () => {
    await stage.orders?.close();
    await stage.net?.close();
  });
  return stage;
}
