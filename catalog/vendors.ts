// Vendors as data. Validated by src/core/catalog.ts (VendorSchema) at build and start.
// Descriptions and social links: the original values are not shown in the specification; these are ours.
export const vendors = [
  {
    id: 'coopersglass',
    name: 'Coopers Glass',
    listed: true,
    description:
      'Hand-blown borosilicate glass by Cooper: crushed opal, neon and stardust work, every piece made to order in a small studio.',
    headerImage: '/images/vendors/coopersglass-header.svg',
    tileImage: '/images/vendors/coopersglass-tile.svg',
    social: { label: '@coopersglass on Instagram', url: 'https://www.instagram.com/coopersglass/' },
    payoutGroup: 'coopersglass',
  },
  {
    id: 'gorilla-pack-genetics',
    name: 'Gorilla Pack Genetics',
    listed: true,
    description: 'Small-batch genetics: live rosin, live resin and flower, pressed and cured in small runs.',
    headerImage: '/images/vendors/gorilla-pack-genetics-header.svg',
    tileImage: '/images/vendors/gorilla-pack-genetics-tile.svg',
    social: {
      label: '@gorillapackgenetics on Instagram',
      url: 'https://www.instagram.com/gorillapackgenetics/',
    },
    payoutGroup: 'gorilla',
  },
];
