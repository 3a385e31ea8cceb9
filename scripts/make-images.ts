/**
 * Generates the catalogue's SVG illustrations (the original photos are not available): one per product, a
 * header and a tile per vendor, under catalog/public/images/. Deterministic; each file stays under 4 KB.
 * Run: node --import tsx scripts/make-images.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { products } from '../catalog/products';
import { vendors } from '../catalog/vendors';

const out = resolve(import.meta.dirname, '../catalog/public');

type Palette = { a: string; b: string; c: string };
const PALETTES: Record<string, Palette> = {
  sonic: { a: '#1fb5c9', b: '#3f6df2', c: '#b8f3ff' },
  lilac: { a: '#b99cf0', b: '#7d5cc9', c: '#efe3ff' },
  neon: { a: '#b6ff3b', b: '#17d68a', c: '#f6ffd1' },
  mint: { a: '#8ff0c8', b: '#2fae8a', c: '#e6fff5' },
  lv: { a: '#b07a3c', b: '#5b3a1c', c: '#f1d7a8' },
  eagles: { a: '#2f7d4f', b: '#9aa7ad', c: '#e4f1e9' },
  clear: { a: '#cfe8f2', b: '#7fa9bd', c: '#ffffff' },
  stardust: { a: '#2c4bd6', b: '#0c1b6b', c: '#cfe0ff' },
  pivot: { a: '#f0a93b', b: '#b5521b', c: '#ffe7bf' },
  rosin: { a: '#f3c24d', b: '#c98a16', c: '#fff1c4' },
  strawberry: { a: '#f08a5d', b: '#c73e4a', c: '#ffe0c9' },
  plum: { a: '#b4588f', b: '#6b2352', c: '#f7d5ea' },
  honeydew: { a: '#d9e86a', b: '#e7a93a', c: '#fbffd8' },
  garlic: { a: '#e8d39a', b: '#a8873c', c: '#fff7dd' },
  flower: { a: '#6fbf5a', b: '#3d7a34', c: '#e4f8d6' },
};

function paletteFor(id: string): Palette {
  const key = Object.keys(PALETTES).find((k) => id.includes(k));
  if (id.includes('proxy-recycler')) return PALETTES.clear!;
  if (id.includes('opal-spillproof') || id.startsWith('sonic')) return PALETTES.sonic!;
  if (id.includes('hybrid')) return PALETTES.neon!;
  if (id.includes('papaya')) return PALETTES.honeydew!;
  if (id.includes('bathsalts')) return PALETTES.flower!;
  return (key && PALETTES[key]) || PALETTES.rosin!;
}

// Small deterministic PRNG so the speckles differ per product but not per run.
function rng(seed: string): () => number {
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return () => {
    h = Math.imul(h ^ (h >>> 15), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return ((h ^= h >>> 16) >>> 0) / 4294967296;
  };
}

const defs = (p: Palette, id: string) =>
  `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${p.c}"/><stop offset=".45" stop-color="${p.a}"/><stop offset="1" stop-color="${p.b}"/></linearGradient>` +
  `<radialGradient id="bg" cx=".5" cy=".4" r=".75"><stop offset="0" stop-color="#2b2640"/><stop offset="1" stop-color="#14111f"/></radialGradient></defs>` +
  `<rect width="600" height="600" fill="url(#bg)"/><!-- ${id} -->`;

function speckles(id: string, p: Palette, cx: number, cy: number, rx: number, ry: number, n: number): string {
  const r = rng(id);
  let s = '';
  for (let i = 0; i < n; i++) {
    const t = r() * Math.PI * 2;
    const d = Math.sqrt(r());
    const x = cx + Math.cos(t) * rx * d;
    const y = cy + Math.sin(t) * ry * d;
    s += `<circle cx="${x.toFixed(0)}" cy="${y.toFixed(0)}" r="${(2 + r() * 5).toFixed(1)}" fill="${i % 3 ? '#fff' : p.c}" opacity="${(0.35 + r() * 0.5).toFixed(2)}"/>`;
  }
  return s;
}

const shine =
  '<path d="M250 190c-30 40-34 110-10 160" stroke="#fff" stroke-width="14" stroke-linecap="round" fill="none" opacity=".35"/>';

function glassPiece(id: string): string {
  const p = paletteFor(id);
  const opal = /opal|stardust|cropal/.test(id);
  let body: string;
  if (id.includes('puffer')) {
    body = `<ellipse cx="300" cy="300" rx="150" ry="170" fill="url(#g)"/><path d="M300 130v-60" stroke="${p.c}" stroke-width="46" stroke-linecap="round"/><ellipse cx="300" cy="478" rx="90" ry="22" fill="${p.b}"/>`;
  } else if (id.includes('spillproof')) {
    body = `<path d="M200 470h200l-30-190c-5-35-25-60-70-60s-65 25-70 60z" fill="url(#g)"/><path d="M260 220q40-120 40-150" stroke="${p.c}" stroke-width="40" stroke-linecap="round" fill="none"/><circle cx="300" cy="350" r="40" fill="${p.c}" opacity=".45"/>`;
  } else if (id.includes('tiptop') || id.includes('top')) {
    body = `<rect x="240" y="150" width="120" height="300" rx="60" fill="url(#g)"/><path d="M200 200h200" stroke="${p.b}" stroke-width="30" stroke-linecap="round"/><circle cx="300" cy="130" r="40" fill="${p.c}"/>`;
  } else if (id.includes('recycler')) {
    body = `<path d="M220 470h160l-20-140h-120z" fill="url(#g)"/><path d="M250 330c-90-60-90-200 20-210M350 330c90-60 90-200-20-210" stroke="${p.a}" stroke-width="34" fill="none" stroke-linecap="round"/><path d="M300 120V60" stroke="${p.c}" stroke-width="40" stroke-linecap="round"/>`;
  } else {
    // joystick / stick
    body = `<rect x="260" y="110" width="80" height="360" rx="40" fill="url(#g)" transform="rotate(-18 300 300)"/><circle cx="360" cy="150" r="48" fill="${p.a}"/>`;
  }
  const dots = opal ? speckles(id, p, 300, 310, 110, 130, 26) : '';
  const stars = id.includes('stardust')
    ? speckles(id + 's', { ...p, c: '#fff' }, 300, 300, 260, 260, 14)
    : '';
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 600" width="600" height="600">${defs(p, id)}${stars}${body}${dots}${shine}</svg>`;
}

function jar(id: string): string {
  const p = paletteFor(id);
  const resin = id.includes('resin');
  const content = resin
    ? `<path d="M200 360q100-60 200 0v90H200z" fill="url(#g)"/>${speckles(id, p, 300, 410, 90, 30, 14)}`
    : `<rect x="200" y="330" width="200" height="120" fill="url(#g)"/><path d="M200 330q50-30 100 0t100 0" fill="${p.c}" opacity=".6"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 600" width="600" height="600">${defs(p, id)}<rect x="170" y="190" width="260" height="290" rx="36" fill="#fff" opacity=".12" stroke="#fff" stroke-opacity=".5" stroke-width="6"/>${content}<rect x="185" y="150" width="230" height="56" rx="14" fill="${p.b}"/><rect x="210" y="240" width="180" height="50" rx="8" fill="#fff" opacity=".85"/><rect x="230" y="258" width="140" height="14" rx="7" fill="${p.b}"/><path d="M195 250v180" stroke="#fff" stroke-width="10" opacity=".35" stroke-linecap="round"/></svg>`;
}

function flower(id: string): string {
  const p = paletteFor(id);
  const r = rng(id);
  let buds = '';
  for (let i = 0; i < 9; i++) {
    const x = 300 + (r() - 0.5) * 220;
    const y = 300 + (r() - 0.5) * 200;
    buds += `<ellipse cx="${x.toFixed(0)}" cy="${y.toFixed(0)}" rx="${(45 + r() * 30).toFixed(0)}" ry="${(35 + r() * 20).toFixed(0)}" fill="url(#g)" transform="rotate(${(r() * 180).toFixed(0)} ${x.toFixed(0)} ${y.toFixed(0)})"/>`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 600" width="600" height="600">${defs(p, id)}${buds}${speckles(id, { ...p, c: '#f5a65b' }, 300, 300, 150, 130, 22)}</svg>`;
}

function vendorArt(id: string, w: number, h: number, title: string): string {
  const glass = id === 'coopersglass';
  const p = glass ? PALETTES.sonic! : PALETTES.flower!;
  const r = rng(id + w);
  let shapes = '';
  for (let i = 0; i < 7; i++) {
    const x = (r() * w).toFixed(0);
    const y = (r() * h).toFixed(0);
    const s = (h * (0.2 + r() * 0.35)).toFixed(0);
    shapes += glass
      ? `<circle cx="${x}" cy="${y}" r="${s}" fill="${[p.a, p.b, PALETTES.lilac!.a, PALETTES.neon!.a][i % 4]}" opacity=".35"/>`
      : `<ellipse cx="${x}" cy="${y}" rx="${s}" ry="${(Number(s) * 0.6).toFixed(0)}" fill="${[p.a, p.b, PALETTES.rosin!.a][i % 3]}" opacity=".35" transform="rotate(${(r() * 90).toFixed(0)} ${x} ${y})"/>`;
  }
  let fs = Math.round(h * 0.2);
  // A title wider than the image (about half an em per character in Georgia bold) goes on two lines, split at
  // the word boundary that keeps the longer line shortest, so no narrow tile clips it (e2e storefront test).
  let text = `<text x="50%" y="54%" text-anchor="middle" dominant-baseline="middle" font-family="Georgia, serif" font-size="${fs}" font-weight="700" fill="#fff">${title}</text>`;
  if (title.length * fs * 0.5 > w * 0.98) {
    const words = title.split(' ');
    let best = [title, ''];
    for (let i = 1; i < words.length; i++) {
      const pair = [words.slice(0, i).join(' '), words.slice(i).join(' ')];
      if (Math.max(...pair.map((l) => l.length)) < Math.max(...best.map((l) => l.length))) best = pair;
    }
    fs = Math.round(fs * 0.87);
    text = `<text text-anchor="middle" dominant-baseline="middle" font-family="Georgia, serif" font-size="${fs}" font-weight="700" fill="#fff"><tspan x="50%" y="42%">${best[0]}</tspan><tspan x="50%" y="64%">${best[1]}</tspan></text>`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}"><defs><linearGradient id="v" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#231d38"/><stop offset="1" stop-color="${glass ? '#0f2d3a' : '#15301c'}"/></linearGradient></defs><rect width="${w}" height="${h}" fill="url(#v)"/>${shapes}${text}</svg>`;
}

function write(rel: string, svg: string): void {
  const file = resolve(out, rel.replace(/^\//, ''));
  mkdirSync(resolve(file, '..'), { recursive: true });
  if (svg.length >= 4096) throw new Error(`${rel} is ${svg.length} bytes (limit 4 KB)`);
  writeFileSync(file, svg + '\n');
}

for (const p of products) {
  const svg =
    p.vendorId === 'coopersglass' ? glassPiece(p.id) : p.id.includes('bathsalts') ? flower(p.id) : jar(p.id);
  write(p.image, svg);
}
for (const v of vendors) {
  write(v.headerImage, vendorArt(v.id, 1200, 300, v.name));
  write(v.tileImage, vendorArt(v.id, 400, 300, v.name));
}
write(
  '/favicon.svg',
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#12101c"/><text x="16" y="23" text-anchor="middle" font-family="sans-serif" font-size="20" font-weight="800" fill="#7ee0c3">$</text></svg>',
);
console.log(`wrote ${products.length} product images, ${vendors.length * 2} vendor images`);
