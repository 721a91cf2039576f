import fs from 'node:fs';
import path from 'node:path';

/**
 * The erasure ledger (issue 36): one tombstone a decided erasure, kept outside the database so that
 * restoring a backup taken before an erasure does not bring the player back. A tombstone holds nothing
 * personal: the erasure's id, the player's internal id (a random uuid, which names nobody once the
 * player is erased) and when it was decided. JSON lines, appended and fsynced before the erasure is
 * applied; a line written twice (the API and then the job) is the same tombstone.
 *
 * It lives at ERASURE_LEDGER (default DATA_DIR/erasure-ledger.jsonl), which no backup of the service
 * holds and no restore replaces. Processes on several machines point it at storage they share.
 */
export interface Tombstone {
  erasureId: string;
  playerId: string;
  at: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Appends the tombstones and forces them to disk before returning. */
export function appendTombstones(file: string, tombstones: Tombstone[]): void {
  if (!tombstones.length) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'a', 0o600);
  try {
    fs.writeSync(fd, tombstones.map((t) => `${JSON.stringify(t)}\n`).join(''));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Every tombstone of the ledger, one an erasure (the first line of each), in the order written. A
 * line cut short by a crash mid-write, or not a tombstone, is skipped; none yet: empty.
 */
export function readTombstones(file: string): Tombstone[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const seen = new Map<string, Tombstone>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    let t: Partial<Tombstone>;
    try {
      t = JSON.parse(line) as Partial<Tombstone>;
    } catch {
      continue;
    }
    if (
      typeof t.erasureId === 'string' &&
      UUID.test(t.erasureId) &&
      typeof t.playerId === 'string' &&
      UUID.test(t.playerId) &&
      typeof t.at === 'string' &&
      !seen.has(t.erasureId)
    )
      seen.set(t.erasureId, { erasureId: t.erasureId, playerId: t.playerId, at: t.at });
  }
  return [...seen.values()];
}
