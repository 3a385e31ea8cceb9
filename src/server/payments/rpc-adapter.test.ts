import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcBudget } from './budget';
import { budgetedRpc } from './connection';
import { UnreadableTransactionError } from './rpc';
import { chainPaymentRpc } from './rpc-adapter';

const KEY = '11111111111111111111111111111111';
const bodies: { method: string; params: unknown[] }[] = [];
let answer: unknown = null;
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw) as { id: number; method: string; params: unknown[] };
      bodies.push(body);
      res.setHeader('content-type', 'application/json');
      res.end(
        typeof answer === 'string'
          ? answer
          : JSON.stringify({ jsonrpc: '2.0', id: body.id, ...(answer as object) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('getTransaction through the budgeted RPC client', () => {
  it('is one raw request declaring version 1, counted by the process budget, its v1 answer read', async () => {
    const budget = new RpcBudget({ perWindow: 60 });
    const rpc = chainPaymentRpc(budgetedRpc({ rpcUrl: url }, budget));
    answer = {
      result: {
        slot: 7,
        blockTime: 1,
        version: 1,
        transaction: {
          signatures: ['s'],
          message: {
            header: {
              numRequiredSignatures: 1,
              numReadonlySignedAccounts: 0,
              numReadonlyUnsignedAccounts: 0,
            },
            accountKeys: [KEY],
            recentBlockhash: KEY,
            instructions: [],
            transactionConfig: {
              computeUnitLimit: 1,
              heapSize: null,
              loadedAccountsDataSizeLimit: 1,
              priorityFee: null,
            },
          },
        },
        meta: {
          err: null,
          preTokenBalances: [],
          postTokenBalances: [],
          loadedAddresses: { writable: [], readonly: [] },
        },
      },
    };
    const before = budget.stats().requests;
    const tx = await rpc.getTransaction('sig');
    expect(tx?.slot).toBe(7);
    expect(budget.stats().requests - before).toBe(1);
    const last = bodies.at(-1)!;
    expect(last.method).toBe('getTransaction');
    expect(last.params[1]).toMatchObject({
      maxSupportedTransactionVersion: 1,
      encoding: 'json',
      commitment: 'confirmed',
    });
  });

  it('-32015 and a body that is not JSON are unreadable transactions, not transport failures', async () => {
    const rpc = chainPaymentRpc(budgetedRpc({ rpcUrl: url }, new RpcBudget({ perWindow: 60 })));
    answer = {
      error: { code: -32015, message: 'Transaction version (2) is not supported by the requesting client.' },
    };
    await expect(rpc.getTransaction('sig')).rejects.toBeInstanceOf(UnreadableTransactionError);
    answer = '<html>oops</html>';
    await expect(rpc.getTransaction('sig')).rejects.toBeInstanceOf(UnreadableTransactionError);
  });

  it("kit's calls go through the same budget, one request each, and a node's error keeps its words", async () => {
    const budget = new RpcBudget({ perWindow: 60 });
    const rpc = chainPaymentRpc(budgetedRpc({ rpcUrl: url }, budget));
    answer = {
      result: {
        context: { slot: 9 },
        value: [null, { slot: 8, confirmations: null, err: null, confirmationStatus: 'finalized' }],
      },
    };
    const before = budget.stats().requests;
    expect(await rpc.getSignatureStatuses(['a', 'b'])).toEqual([
      null,
      { slot: 8, err: null, confirmationStatus: 'finalized' },
    ]);
    expect(budget.stats().requests - before).toBe(1);
    expect(bodies.at(-1)).toMatchObject({
      method: 'getSignatureStatuses',
      params: [['a', 'b'], { searchTransactionHistory: true }],
    });
    answer = { error: { code: -32602, message: 'Invalid param: WrongSize' } };
    await expect(rpc.getSignatureStatuses(['a'])).rejects.toThrow(
      'getSignatureStatuses: JSON-RPC error -32602: Invalid param: WrongSize',
    );
  });
});
