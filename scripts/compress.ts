/**
 * Precompresses the built web app: a `.br` (brotli, quality 11) and a `.gz` (gzip, level 9) beside every text
 * asset under dist/web, kept only when smaller. The server serves them by Accept-Encoding (@fastify/static
 * `preCompressed`), so no request pays for compression. Run by scripts/prerender.ts, the last build step.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TEXT = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt', '.xml', '.webmanifest']);

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

export function compressDir(dir: string): { files: number; bytes: number; brotli: number } {
  let count = 0;
  let bytes = 0;
  let brotli = 0;
  for (const path of files(dir)) {
    if (!TEXT.has(extname(path))) continue;
    const body = readFileSync(path);
    if (body.length < 512) continue;
    const br = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
    const gz = gzipSync(body, { level: 9 });
    if (br.length < body.length) writeFileSync(`${path}.br`, br);
    if (gz.length < body.length) writeFileSync(`${path}.gz`, gz);
    count++;
    bytes += body.length;
    brotli += Math.min(br.length, body.length);
  }
  return { files: count, bytes, brotli };
}
