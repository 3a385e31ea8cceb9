// Products as data. Validated by src/core/catalog.ts (ProductSchema) at build and start.
// Route mapping of product1..product12 and prices: ../shared/design.md, "Glass product routes".
// Stock lives in the store (seeded once from `initialStock`; sold out = nothing available, never a flag):
// docs/decisions/catalogue.md, "Stock".
const glass = (
  n: number,
  rest: {
    id: string;
    name: string;
    saleCents: number;
    retailCents: number;
    payment?: 'wallet' | 'qr';
    aliases?: string[];
    notes?: string;
    /**
     * A drop (docs/decisions/drops.md): on sale from `startsAt`, each piece held `holdMinutes`, `perBuyer` each (of
     * the whole `batch`, e.g. 'Spring 2026', when several pieces are one drop).
     */
    drop?: { startsAt: string; holdMinutes?: number; perBuyer?: number; batch?: string };
  },
) => ({
  id: rest.id,
  vendorId: 'coopersglass',
  name: rest.name,
  routes: [`/vendors/coopersglass/product${n}`, ...(rest.aliases ?? [])],
  image: `/images/products/${rest.id}.svg`,
  imageAlt: `${rest.name}, hand-blown glass by Coopers Glass`,
  retailCents: rest.retailCents,
  saleCents: rest.saleCents,
  payment: rest.payment ?? 'wallet',
  // Each glass piece is one of a kind.
  initialStock: 1,
  freeShipping: false,
  quantity: rest.payment === 'qr',
  gridOrder: n,
  ...(rest.notes ? { notes: rest.notes } : {}),
  ...(rest.drop ? { drop: rest.drop } : {}),
});

const gorilla = (rest: {
  id: string;
  name: string;
  route: string;
  payment: 'wallet' | 'qr';
  initialStock: number;
  gridOrder?: number;
  variants?: { id: string; label: string; priceCents: number }[];
  notes?: string;
}) => ({
  id: rest.id,
  vendorId: 'gorilla-pack-genetics',
  name: rest.name,
  routes: [rest.route],
  image: `/images/products/${rest.id}.svg`,
  imageAlt: `${rest.name} from Gorilla Pack Genetics`,
  saleCents: rest.variants?.[0]?.priceCents ?? 5000,
  ...(rest.variants ? { variants: rest.variants } : {}),
  payment: rest.payment,
  initialStock: rest.initialStock,
  freeShipping: true,
  quantity: true,
  ...(rest.gridOrder !== undefined ? { gridOrder: rest.gridOrder } : {}),
  ...(rest.notes ? { notes: rest.notes } : {}),
});

export const products = [
  glass(1, {
    id: 'sonic-crushed-opal-spillproof',
    name: 'Sonic Crushed Opal Spillproof',
    saleCents: 32500,
    retailCents: 47500,
  }),
  glass(2, { id: 'lilac-tiptop', name: 'Lilac TipTop', saleCents: 9500, retailCents: 12500 }),
  glass(3, {
    id: 'electric-neon-puffer',
    name: 'Electric Neon Puffer',
    saleCents: 22500,
    retailCents: 32500,
  }),
  glass(4, {
    id: 'mint-crushed-opal-puffer',
    name: 'Mint Crushed Opal Puffer',
    saleCents: 27500,
    retailCents: 37500,
  }),
  glass(5, {
    id: 'sonic-crushed-opal-puffer',
    name: 'Sonic Crushed Opal Puffer',
    saleCents: 27500,
    retailCents: 35000,
  }),
  glass(6, {
    id: 'sonic-crushed-opal-puffer-ii',
    name: 'Sonic Crushed Opal Puffer II',
    saleCents: 27500,
    retailCents: 37500,
    notes:
      'The notes list "Sonic Crushed Opal Puffer" twice (two variants); the second is shown as II so the grid is unambiguous.',
  }),
  glass(7, {
    id: 'electric-neon-hybrid-proxy-peak-spillproof',
    name: 'Electric Neon Hybrid Proxy Peak Spillproof',
    saleCents: 45000,
    retailCents: 65000,
  }),
  glass(8, {
    id: 'lv-crushed-opal-puffer',
    name: 'LV Crushed Opal Puffer',
    saleCents: 28500,
    retailCents: 42500,
  }),
  glass(9, {
    id: 'eagles-xl-joystick-cropal-stick',
    name: 'Eagles XL Joystick Cropal Stick',
    saleCents: 8500,
    retailCents: 11500,
    payment: 'qr',
  }),
  glass(10, {
    id: 'proxy-recycler-clear',
    name: 'Proxy Recycler Clear',
    saleCents: 35000,
    retailCents: 55000,
    aliases: ['/proxrec'],
    notes:
      'Sale price not shown; the cut-off page read 350/550 and one page read 275. We use 350/550 (design.md).',
  }),
  glass(11, {
    id: 'blue-stardust-crushed-opal-puffer',
    name: 'Blue Stardust Crushed Opal Puffer',
    saleCents: 27500,
    retailCents: 37500,
    aliases: ['/dustcrop'],
  }),
  glass(12, { id: 'pivot-cropal-top', name: 'Pivot Cropal Top', saleCents: 9500, retailCents: 13500 }),

  gorilla({
    id: 'garlic-amaretto-live-resin',
    name: 'Garlic Amaretto Live Resin',
    route: '/garlic',
    payment: 'wallet',
    initialStock: 25,
    gridOrder: 1,
  }),
  gorilla({
    id: 'honey-dew-papaya-live-rosin',
    name: 'Honey Dew Papaya Live Rosin',
    route: '/honey2',
    payment: 'qr',
    initialStock: 25,
    gridOrder: 2,
    notes: 'The catalogue links Honey Dew Papaya to /honey2, the QR variant (design.md).',
  }),
  gorilla({
    id: 'plumz1-live-rosin',
    name: 'PlumZ Live Rosin',
    route: '/plumz1',
    payment: 'wallet',
    initialStock: 25,
    gridOrder: 3,
    notes: 'Catalogue name "Plumz1 Live Rosin"; its page reads PlumZ.',
  }),
  gorilla({
    id: 'strawberry-fritter-live-rosin',
    name: 'Strawberry Fritter Live Rosin',
    route: '/strawberry-fritter',
    payment: 'qr',
    initialStock: 0, // sold out in the spec: the seller restocks
    gridOrder: 4,
  }),
  gorilla({
    id: 'plumz-live-rosin',
    name: 'Plumz Live Rosin',
    route: '/plumz',
    payment: 'wallet',
    initialStock: 0, // sold out in the spec: the seller restocks
    gridOrder: 5,
  }),
  gorilla({
    id: 'honeydew-papaya-live-rosin',
    name: 'HoneyDew Papaya Live Rosin',
    route: '/honeydew-papaya',
    payment: 'wallet',
    initialStock: 0, // sold out in the spec: the seller restocks
    gridOrder: 6,
  }),
  gorilla({
    id: 'bathsalts-flower',
    name: 'BathSalts Flower',
    route: '/bathsalts',
    payment: 'wallet',
    initialStock: 0, // sold out in the spec: the seller restocks
    gridOrder: 7,
    variants: [
      { id: '18ths', label: '18ths', priceCents: 4000 },
      { id: 'zips', label: 'zips', priceCents: 20000 },
    ],
  }),
];
