// The npm registry reachable here serves only the linux-x64-gnu build of litesvm, so npm leaves the other
// platforms' optional packages out of package-lock.json and `npm ci` then refuses the lock. This adds their
// lock entries back (optional, os/cpu/libc-gated, so no platform here ever fetches them). Run after lock changes:
//   node scripts/lock-platform-packages.cjs package-lock.json
const fs = require('fs');
const file = process.argv[2];
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const plats = {
  'litesvm-darwin-arm64': { cpu: ['arm64'], os: ['darwin'] },
  'litesvm-darwin-x64': { cpu: ['x64'], os: ['darwin'] },
  'litesvm-linux-arm64-gnu': { cpu: ['arm64'], libc: ['glibc'], os: ['linux'] },
  'litesvm-linux-arm64-musl': { cpu: ['arm64'], libc: ['musl'], os: ['linux'] },
  'litesvm-linux-x64-musl': { cpu: ['x64'], libc: ['musl'], os: ['linux'] },
};
const version = lock.packages['node_modules/litesvm'].version;
for (const [name, p] of Object.entries(plats)) {
  const key = `node_modules/${name}`;
  if (!lock.packages[key])
    lock.packages[key] = { version, ...p, license: 'MIT', optional: true, engines: { node: '>= 20' } };
}
const sorted = {};
for (const k of Object.keys(lock.packages).sort()) sorted[k] = lock.packages[k];
lock.packages = { '': lock.packages[''], ...sorted };
fs.writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
