/** WebSocket PubSub: signature, account, logs, slot and root subscriptions with Solana's notification shapes. */
import type { WebSocket } from 'ws';
import { encodeAccount, parseEncoding, type Encoding } from './accounts.js';
import type { Chain, Commitment } from './chain.js';
import { RpcError } from './rpc-error.js';
import type { TxRecord } from './history.js';
import { errorResponse, handleOne } from './jsonrpc.js';

type Sub =
  | { kind: 'signature'; socket: WebSocket; id: number; signature: string; commitment: Commitment }
  | {
      kind: 'account';
      socket: WebSocket;
      id: number;
      address: string;
      commitment: Commitment;
      encoding: Encoding;
    }
  | { kind: 'logs'; socket: WebSocket; id: number; mentions: string | null; commitment: Commitment }
  | { kind: 'slot'; socket: WebSocket; id: number }
  | { kind: 'root'; socket: WebSocket; id: number };

type DistOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type NewSub = DistOmit<Sub, 'id'>;

const UNSUBSCRIBE: Record<string, Sub['kind']> = {
  signatureUnsubscribe: 'signature',
  accountUnsubscribe: 'account',
  logsUnsubscribe: 'logs',
  slotUnsubscribe: 'slot',
  rootUnsubscribe: 'root',
};

function commitmentOf(cfg: unknown): Commitment {
  const c = typeof cfg === 'object' && cfg !== null ? (cfg as Record<string, unknown>).commitment : undefined;
  if (c === undefined || c === null) return 'finalized';
  if (c === 'processed' || c === 'confirmed' || c === 'finalized') return c;
  if (c === 'recent') return 'processed';
  if (c === 'single' || c === 'singleGossip') return 'confirmed';
  if (c === 'max' || c === 'root') return 'finalized';
  throw new RpcError(-32602, `Invalid params: unknown commitment ${JSON.stringify(c)}`);
}

export class Subscriptions {
  private readonly subs = new Map<number, Sub>();
  private nextId = 0;

  constructor(
    private readonly chain: Chain,
    private readonly isFailing: () => boolean,
  ) {
    chain.on('commitment', (record, level) => this.onCommitment(record, level));
    chain.on('slot', (slot) => this.onSlot(slot));
  }

  attach(socket: WebSocket): void {
    socket.on('message', (raw) => {
      const text = Buffer.isBuffer(raw)
        ? raw.toString('utf8')
        : Array.isArray(raw)
          ? Buffer.concat(raw).toString('utf8')
          : Buffer.from(raw).toString('utf8');
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        this.send(socket, errorResponse(null, -32700, 'Parse error'));
        return;
      }
      const reqs = Array.isArray(parsed) ? parsed : [parsed];
      const out = reqs
        .filter(
          (r) =>
            !(
              typeof r === 'object' &&
              r !== null &&
              !Array.isArray(r) &&
              (r as Record<string, unknown>).id === undefined
            ),
        )
        .map((r) => handleOne(r, (method, params) => this.call(socket, method, params)));
      if (out.length === 0) return; // notifications (e.g. web3.js's "ping") get no answer
      this.send(socket, Array.isArray(parsed) ? out : out[0]);
    });
    socket.on('close', () => {
      for (const [id, s] of this.subs) if (s.socket === socket) this.subs.delete(id);
    });
    socket.on('error', () => socket.terminate());
  }

  get count(): number {
    return this.subs.size;
  }

  private send(socket: WebSocket, msg: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(msg));
  }

  private notify(sub: Sub, method: string, result: unknown): void {
    this.send(sub.socket, { jsonrpc: '2.0', method, params: { result, subscription: sub.id } });
  }

  private add(sub: NewSub): number {
    this.nextId += 1;
    const full = { ...sub, id: this.nextId } as Sub;
    this.subs.set(full.id, full);
    return full.id;
  }

  private call(socket: WebSocket, method: string, params: unknown[]): unknown {
    if (this.isFailing()) throw new RpcError(-32000, 'localnet is set to fail (setFailing(true))');
    const unsubKind = UNSUBSCRIBE[method];
    if (unsubKind) {
      const id = params[0];
      const sub = typeof id === 'number' ? this.subs.get(id) : undefined;
      if (!sub || sub.kind !== unsubKind || sub.socket !== socket)
        throw new RpcError(-32602, 'Invalid subscription id.');
      this.subs.delete(sub.id);
      return true;
    }
    switch (method) {
      case 'signatureSubscribe': {
        const signature = params[0];
        if (typeof signature !== 'string')
          throw new RpcError(-32602, 'Invalid params: expected a signature string.');
        const commitment = commitmentOf(params[1]);
        const id = this.add({ kind: 'signature', socket, signature, commitment });
        const record = this.chain.history.get(signature);
        if (record && this.chain.reached(record.slot, commitment)) {
          setImmediate(() => this.fireSignature(id, record));
        }
        return id;
      }
      case 'accountSubscribe': {
        const address = params[0];
        if (typeof address !== 'string')
          throw new RpcError(-32602, 'Invalid params: expected a pubkey string.');
        const cfg = params[1] as Record<string, unknown> | undefined;
        const encoding = parseEncoding(cfg?.encoding, 'binary');
        return this.add({ kind: 'account', socket, address, commitment: commitmentOf(cfg), encoding });
      }
      case 'logsSubscribe': {
        const filter = params[0];
        let mentions: string | null;
        if (filter === 'all' || filter === 'allWithVotes') mentions = null;
        else if (
          typeof filter === 'object' &&
          filter !== null &&
          Array.isArray((filter as Record<string, unknown>).mentions)
        ) {
          const list = (filter as { mentions: unknown[] }).mentions;
          if (list.length !== 1 || typeof list[0] !== 'string') {
            throw new RpcError(-32602, 'Invalid Request: Only 1 address supported');
          }
          mentions = list[0];
        } else throw new RpcError(-32602, 'Invalid params: expected "all" or {"mentions": [pubkey]}.');
        return this.add({ kind: 'logs', socket, mentions, commitment: commitmentOf(params[1]) });
      }
      case 'slotSubscribe':
        return this.add({ kind: 'slot', socket });
      case 'rootSubscribe':
        return this.add({ kind: 'root', socket });
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  private fireSignature(id: number, record: TxRecord): void {
    const sub = this.subs.get(id);
    if (!sub || sub.kind !== 'signature') return;
    this.subs.delete(id); // signature subscriptions end after their notification
    this.notify(sub, 'signatureNotification', {
      context: { slot: this.chain.slotAt(sub.commitment) },
      value: { err: record.err },
    });
  }

  private onCommitment(record: TxRecord, level: Commitment): void {
    for (const sub of [...this.subs.values()]) {
      if (sub.kind === 'signature') {
        if (sub.signature === record.signature && sub.commitment === level)
          this.fireSignature(sub.id, record);
      } else if (sub.kind === 'logs') {
        if (
          sub.commitment === level &&
          (sub.mentions === null || record.accountKeys.includes(sub.mentions))
        ) {
          this.notify(sub, 'logsNotification', {
            context: { slot: record.slot },
            value: { signature: record.signature, err: record.err, logs: record.logs },
          });
        }
      } else if (sub.kind === 'account') {
        const i = record.accountKeys.indexOf(sub.address);
        if (sub.commitment === level && i >= 0 && record.writable[i] === true) {
          const acc = this.chain.getAccount(sub.address);
          const value = acc
            ? encodeAccount(acc, sub.encoding, (m) => this.chain.mint(m))
            : {
                data: sub.encoding === 'jsonParsed' || sub.encoding === 'base64' ? ['', 'base64'] : '',
                executable: false,
                lamports: 0,
                owner: '11111111111111111111111111111111',
                rentEpoch: 0,
                space: 0,
              };
          this.notify(sub, 'accountNotification', { context: { slot: record.slot }, value });
        }
      }
    }
  }

  private onSlot(slot: number): void {
    const root = this.chain.slotAt('finalized');
    for (const sub of [...this.subs.values()]) {
      if (sub.kind === 'slot')
        this.notify(sub, 'slotNotification', { parent: Math.max(0, slot - 1), root, slot });
      else if (sub.kind === 'root') this.notify(sub, 'rootNotification', root);
    }
  }

  closeAll(): void {
    this.subs.clear();
  }
}
