/**
 * Loopback load generation shared by the API benchmarks (bench/price.ts, bench/api.ts):
 * - `startServerProcess`: forks a bench script with `--server` (via tsx) and waits for it to report its port, so
 *   the server has its own process (its own event loop and core) and the load generator does not share it;
 * - `closedLoop`: a fixed number of keep-alive connections each sending requests back to back for a bounded
 *   time (throughput);
 * - `openLoop`: requests started at a fixed arrival rate whatever the answers do (latency at a given load; each
 *   latency is measured from the scheduled start, so a stalled server cannot hide its queue);
 * - `httpCall`, `percentile`, `summarize`, `cliNumber`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';

export interface HttpResult {
  status: number;
  body: string;
}

export interface HttpCallOptions {
  port: number;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  agent: Agent;
  /** Keep the body (default: drain and drop it). */
  readBody?: boolean;
}

export function httpCall(o: HttpCallOptions): Promise<HttpResult> {
  return new Promise<HttpResult>((resolve, reject) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
    const req = request(
      { host: '127.0.0.1', port: o.port, path: o.path, method: o.method ?? 'GET', headers, agent: o.agent },
      (res) => {
        const chunks: Buffer[] = [];
        if (o.readBody) res.on('data', (c: Buffer) => chunks.push(c));
        else res.resume();
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: o.readBody ? Buffer.concat(chunks).toString('utf8') : '',
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets });
}

/** `--name value` from argv, as given; undefined when absent. */
export function cliArg(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** `--name value` from argv, bounded; the fallback when absent or not a positive number. */
export function cliNumber(args: string[], name: string, fallback: number, max: number): number {
  const raw = cliArg(args, name);
  const v = raw !== undefined ? Number(raw) : fallback;
  return Number.isFinite(v) && v > 0 ? Math.min(v, max) : fallback;
}

export interface ServerProcess {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Forks `scriptPath --server ...extraArgs` under tsx. The child must `process.send({ port })` once listening
 * and exit when its IPC channel closes. `nodeArgs` go to the child's node (e.g. --cpu-prof).
 */
export async function startServerProcess(
  scriptPath: string,
  extraArgs: string[] = [],
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const child = fork(scriptPath, ['--server', ...extraArgs], {
    execArgv: ['--import', 'tsx', ...nodeArgs],
    stdio: 'inherit',
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port?: number }) =>
      m.port ? resolve(m.port) : reject(new Error('server sent no port')),
    );
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  return {
    port,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(t);
          resolve();
        });
        child.disconnect();
      }),
  };
}

export interface RunStats {
  /** Latencies in ms, sorted ascending. */
  latencies: number[];
  statuses: Map<number, number>;
  /** Transport errors (connection refused/reset, …). */
  errors: number;
  elapsedS: number;
}

function finish(lat: number[], statuses: Map<number, number>, errors: number, t0: number): RunStats {
  lat.sort((a, b) => a - b);
  return { latencies: lat, statuses, errors, elapsedS: (performance.now() - t0) / 1000 };
}

/** `connections` loops, each awaiting `call()` back to back until `ms` elapses. */
export async function closedLoop(opts: {
  connections: number;
  ms: number;
  call: () => Promise<number>;
}): Promise<RunStats> {
  const lat: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  const t0 = performance.now();
  const end = t0 + opts.ms;
  await Promise.all(
    Array.from({ length: opts.connections }, async () => {
      while (performance.now() < end) {
        const s = performance.now();
        try {
          const status = await opts.call();
          lat.push(performance.now() - s);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        } catch {
          errors++;
        }
      }
    }),
  );
  return finish(lat, statuses, errors, t0);
}

/**
 * Starts `call()` `ratePerS` times a second for `ms`, without waiting for answers. Latency of each call is
 * counted from its scheduled start time (no coordinated omission). Resolves once every call has settled.
 */
export async function openLoop(opts: {
  ratePerS: number;
  ms: number;
  call: (i: number) => Promise<number>;
}): Promise<RunStats> {
  const lat: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  const total = Math.round((opts.ratePerS * opts.ms) / 1000);
  const interval = 1000 / opts.ratePerS;
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const scheduled = t0 + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      opts.call(i).then(
        (status) => {
          lat.push(performance.now() - scheduled);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        },
        () => {
          errors++;
        },
      ),
    );
  }
  await Promise.all(pending);
  return finish(lat, statuses, errors, t0);
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? NaN;
}

/** Lines: requests, rate, errors, latency percentiles, statuses. */
export function summarize(stats: RunStats, pcts: number[] = [50, 99]): string[] {
  const n = stats.latencies.length;
  const lat = pcts.map((p) => `p${p} ${percentile(stats.latencies, p).toFixed(2)} ms`).join(', ');
  return [
    `  requests ${n}, ${(n / stats.elapsedS).toFixed(0)} req/s, errors ${stats.errors}`,
    `  latency ${lat}, max ${(stats.latencies.at(-1) ?? NaN).toFixed(2)} ms`,
    `  statuses ${JSON.stringify(Object.fromEntries(stats.statuses))}`,
  ];
}
