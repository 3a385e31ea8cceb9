import { registerSecrets } from '../redact';
import { demoDataKey, parseDataKeys, type DataKey } from '../privacy/seal';
import { section } from './schema';
import type { Settings } from './types';

/** Personal data at rest (src/server/privacy; docs/decisions/privacy.md): the keys that seal it, its retention. */
export const privacySection = section({
  title: 'Personal data',
  settings: {
    DATA_KEYS: {
      doc: "Keys sealing buyers' details and stored e-mail bodies: id:base64 of 32 random bytes, comma-separated; the first seals, every one opens. Required outside demo mode.",
      defaultDoc: 'none (demo mode: a derived demo key, said at start)',
    },
    PERSONAL_DATA_RETENTION_DAYS: {
      doc: "Days a buyer's details and e-mail bodies are kept after delivery, or after the order closed without shipping.",
      default: 90,
      values: '0 to 3650, fractions allowed',
    },
  },
  read(r, needs: { demo: boolean }): Pick<Settings, 'privacy'> {
    // DATA_KEYS: `id:base64[,id:base64…]`, 32-byte keys; the first seals, all open. Required outside demo mode;
    // demo mode derives a fixed demo key (and says so at start).
    let dataKeys: DataKey[] = [];
    let demoKey = false;
    const dataKeysRaw = r.get('DATA_KEYS');
    if (dataKeysRaw !== undefined) {
      const parsed = parseDataKeys(dataKeysRaw);
      for (const p of parsed.problems) r.problem(p);
      dataKeys = parsed.keys;
      registerSecrets(
        dataKeysRaw
          .split(',')
          .map((p) => p.trim().slice(p.trim().indexOf(':') + 1))
          .filter((k) => k.length >= 16),
      );
    } else if (needs.demo) {
      dataKeys = [demoDataKey()];
      demoKey = true;
    } else
      r.problem(
        'DATA_KEYS: required outside demo mode (id:base64 of 32 random bytes, e.g. k1:$(openssl rand -base64 32))',
      );
    let retentionDays = 90;
    const retentionRaw = r.get('PERSONAL_DATA_RETENTION_DAYS');
    if (retentionRaw !== undefined) {
      if (!/^\d{1,4}(\.\d{1,9})?$/.test(retentionRaw) || Number(retentionRaw) > 3650)
        r.problem(
          `PERSONAL_DATA_RETENTION_DAYS: must be a number of days from 0 to 3650, fractions allowed (got '${retentionRaw}')`,
        );
      else retentionDays = Number(retentionRaw);
    }
    return { privacy: { dataKeys, demoKey, retentionMs: Math.round(retentionDays * 86_400_000) } };
  },
});
