import { withTransaction, type Pool, type Queryable } from '../data/db.js';
import { ACTIVE } from '../data/repos/sanctions.js';
import { BAN_TYPES } from '../domain/sanctions.js';
import { linkStrength, SIGNAL_KINDS, SIGNAL_RULES, STRONG_LINK, type SignalKind } from '../domain/signals.js';

/**
 * Signals, the links they make and the evasion they reveal (issue 53; docs/studios.md "Linked accounts"): the
 * only code that writes signals, account_links and evasion_suspicions (a test holds it to that).
 *
 *   a value:   sent --(seen again: last_seen_at)--> ... --(not seen for its kind's retention, erased,
 *              or taken back with a stolen account's window)--> gone
 *   a link:    derived from the values two accounts share, whenever one of them arrives or leaves
 *   a suspicion: detected (a strong link to an account under an active ban of the same scope)
 *              --(a moderator clears it)--> cleared; it says nothing once the ban is no longer in force
 *
 * Links are derived, never scanned for: a change of a player's values recomputes the links of that
 * player and of the holders of the values that changed (each value has at most its kind's cap + 1
 * holders that matter), in the transaction that changed them, under a lock per value so two
 * sightings of one value at once do not each miss the other.
 */

/** One value to record: a player's, already hashed (the digest under the current key, and under each previous one). */
export interface SignalInput {
  playerId: string;
  kind: SignalKind;
  digest: Buffer;
  previousDigests: Buffer[];
  observedAt: Date;
}

const KINDS = [...SIGNAL_KINDS];
const CAPS = KINDS.map((k) => SIGNAL_RULES[k].cap);

/** A lock key per value: the digest's first 8 bytes (the digest already names the studio and the kind). */
const lockKey = (digest: Buffer) => digest.readBigInt64BE(0).toString();

/** The values held (as committed, and by this transaction) by at most their kind's cap + 1 accounts. */
async function notCrowded<V extends { kind: SignalKind; digest: Buffer }>(
  db: Queryable,
  studioId: string,
  values: readonly V[],
): Promise<V[]> {
  const { rows } = await db.query<{ i: number }>({
    name: 'signal-not-crowded',
    text: `SELECT v.i FROM unnest($2::text[], $3::bytea[]) WITH ORDINALITY v(kind, digest, i)
             JOIN unnest($4::text[], $5::int[]) c(kind, cap) USING (kind)
            WHERE (SELECT count(*) FROM (SELECT 1 FROM signals x
                                          WHERE x.studio_id = $1 AND x.kind = v.kind AND x.digest = v.digest
                                          LIMIT c.cap + 2) n) <= c.cap + 1`,
    values: [studioId, values.map((v) => v.kind), values.map((v) => v.digest), KINDS, CAPS],
  });
  return rows.map((r) => values[Number(r.i) - 1]!);
}

/** Locks these values (in one order, so two calls sharing values never wait on each other in a circle). */
async function lockValues(db: Queryable, values: readonly { digest: Buffer }[]): Promise<void> {
  const locks = [...new Set(values.map((v) => lockKey(v.digest)))];
  await db.query({
    name: 'signal-value-locks',
    text: 'SELECT pg_advisory_xact_lock(k) FROM (SELECT DISTINCT k FROM unnest($1::bigint[]) k ORDER BY k) ordered',
    values: [locks],
  });
}

export interface Recorded {
  /** Values the players had not been seen with before. */
  added: number;
  /** Values seen again. */
  seenAgain: number;
}

/**
 * Records a studio's signals in the caller's transaction: each value's row inserted or its
 * last_seen_at moved on; values hashed under a previous key re-hashed under the current one for
 * every holder (the value is known now, so it is re-keyed everywhere at once); and the links of
 * every player a new value touches recomputed.
 */
export async function recordSignals(
  db: Queryable,
  studioId: string,
  keyId: string,
  inputs: readonly SignalInput[],
): Promise<Recorded> {
  if (inputs.length === 0) return { added: 0, seenAgain: 0 };
  // The same value twice in one call is one sighting, at its latest time.
  const byValue = new Map<string, SignalInput>();
  for (const s of inputs) {
    const k = `${s.playerId}/${s.kind}/${s.digest.toString('hex')}`;
    const had = byValue.get(k);
    if (!had || had.observedAt < s.observedAt) byValue.set(k, s);
  }
  const rows = [...byValue.values()];
  const previous = rows.flatMap((r) =>
    r.previousDigests.map((old) => ({ kind: r.kind, old, digest: r.digest })),
  );
  // Re-keying moves other holders' rows: under the values' locks (a rotation's first days only).
  if (previous.length > 0) {
    await lockValues(db, rows);
    await db.query(
      `WITH pairs AS (SELECT * FROM unnest($2::text[], $3::bytea[], $4::bytea[]) p(kind, old, digest)),
            moved AS (DELETE FROM signals s USING pairs p
                       WHERE s.studio_id = $1 AND s.kind = p.kind AND s.digest = p.old
                      RETURNING s.player_id, s.kind, p.digest, s.first_seen_at, s.last_seen_at)
       INSERT INTO signals (studio_id, kind, digest, key_id, player_id, first_seen_at, last_seen_at)
       SELECT $1, kind, digest, $5, player_id, min(first_seen_at), max(last_seen_at) FROM moved
        GROUP BY kind, digest, player_id
       ON CONFLICT (studio_id, kind, digest, player_id) DO UPDATE
          SET first_seen_at = least(signals.first_seen_at, excluded.first_seen_at),
              last_seen_at = greatest(signals.last_seen_at, excluded.last_seen_at)`,
      [
        studioId,
        previous.map((p) => p.kind),
        previous.map((p) => p.old),
        previous.map((p) => p.digest),
        keyId,
      ],
    );
  }

  // A value seen again is written only when that moves its dates by more than an hour (a player
  // signing in all day writes nothing), and takes no lock: it changes no link.
  const { rows: written } = await db.query<{
    player_id: string;
    kind: SignalKind;
    digest: Buffer;
    added: boolean;
  }>({
    name: 'signals-upsert',
    text: `INSERT INTO signals AS s (studio_id, kind, digest, key_id, player_id, first_seen_at, last_seen_at)
     SELECT $1, kind, digest, $2, player_id, at, at
       FROM unnest($3::uuid[], $4::text[], $5::bytea[], $6::timestamptz[]) v(player_id, kind, digest, at)
     ON CONFLICT (studio_id, kind, digest, player_id) DO UPDATE
        SET first_seen_at = least(s.first_seen_at, excluded.first_seen_at),
            last_seen_at = greatest(s.last_seen_at, excluded.last_seen_at), key_id = excluded.key_id
      WHERE excluded.first_seen_at < s.first_seen_at OR excluded.last_seen_at > s.last_seen_at + interval '1 hour'
     RETURNING s.player_id, s.kind, s.digest, (xmax = 0) AS added`,
    values: [
      studioId,
      keyId,
      rows.map((r) => r.playerId),
      rows.map((r) => r.kind),
      rows.map((r) => r.digest),
      rows.map((r) => r.observedAt),
    ],
  });
  const added = written.filter((w) => w.added);
  if (added.length === 0) return { added: 0, seenAgain: rows.length };
  // A new value may link: its links are derived under a lock per value, taken after the insert, so
  // of two sightings of one value at once the second derives after the first committed and sees it.
  // A value already held by more accounts than its cap + 1 links nobody, now or after any sighting
  // under way: it is neither locked nor derived (a carrier's NAT would otherwise queue every first
  // sign-in behind it).
  const open = await notCrowded(db, studioId, added);
  if (open.length > 0) {
    await lockValues(db, open);
    await relinkAround(db, studioId, open);
  }
  return { added: added.length, seenAgain: rows.length - added.length };
}

/**
 * Recomputes the links of the players of these values and of the other holders of each value that
 * could matter: a value still within its cap, or one that just went over it (its holders lose the
 * links it made). A value far over its cap made no link before and makes none now: its holders are
 * not read.
 */
async function relinkAround(
  db: Queryable,
  studioId: string,
  values: readonly { player_id: string; kind: SignalKind; digest: Buffer }[],
): Promise<void> {
  // A value held by this player alone links nobody yet: most new values (a new install, a new
  // network) change no link, and nothing is derived for them.
  const holders = await holdersWithin(db, studioId, values, 1);
  await relink(db, studioId, holders);
}

/**
 * The holders of these values of a studio whose links the values may change: for each value held by
 * two accounts or more and at most its kind's cap + `slack` (a value over that made no link and makes
 * none; one held by one account links nobody): read with a bound, never counted in full.
 */
async function holdersWithin(
  db: Queryable,
  studioId: string,
  values: readonly { kind: SignalKind; digest: Buffer }[],
  slack: 0 | 1,
): Promise<string[]> {
  const { rows } = await db.query<{ player_id: string }>({
    name: 'signal-holders',
    text: `WITH caps AS (SELECT * FROM unnest($4::text[], $5::int[]) c(kind, cap)),
          v AS (SELECT DISTINCT kind, digest FROM unnest($2::text[], $3::bytea[]) v(kind, digest)),
          h AS (SELECT v.kind, v.digest, c.cap, x.player_id FROM v JOIN caps c USING (kind)
                  CROSS JOIN LATERAL (SELECT x.player_id FROM signals x
                                       WHERE x.studio_id = $1 AND x.kind = v.kind AND x.digest = v.digest
                                       LIMIT c.cap + $6 + 1) x)
     SELECT DISTINCT player_id FROM (SELECT player_id, cap, count(*) OVER (PARTITION BY kind, digest) AS n FROM h) h
      WHERE n >= 2 AND n <= cap + $6`,
    values: [studioId, values.map((v) => v.kind), values.map((v) => v.digest), KINDS, CAPS, slack],
  });
  return rows.map((r) => r.player_id);
}

/**
 * The links of these players in this studio, derived again from the values they hold: every link
 * touching one of them is replaced (in both directions); links between other players are untouched.
 */
export async function relink(db: Queryable, studioId: string, playerIds: readonly string[]): Promise<void> {
  if (playerIds.length === 0) return;
  // One derivation of a player's links at a time: two calls touching one player through different
  // values would each replace the links from what they saw. (Key space 53, apart from the values'.)
  await db.query({
    name: 'signal-player-locks',
    text: `SELECT pg_advisory_xact_lock(53, k) FROM (SELECT DISTINCT hashtext(p::text) AS k
                                                     FROM unnest($1::uuid[]) p ORDER BY 1) ordered`,
    values: [playerIds],
  });
  const { rows } = await db.query<{ player_id: string; other_id: string; kind: SignalKind; since: Date }>({
    name: 'signal-links-derive',
    text: `WITH caps AS (SELECT * FROM unnest($3::text[], $4::int[]) c(kind, cap)),
          mine AS (SELECT s.player_id, s.kind, s.digest, s.first_seen_at FROM signals s
                    WHERE s.studio_id = $1 AND s.player_id = ANY($2::uuid[])),
          usable AS (SELECT m.* FROM mine m JOIN caps c USING (kind)
                      WHERE (SELECT count(*) FROM (SELECT 1 FROM signals x
                                                     WHERE x.studio_id = $1 AND x.kind = m.kind AND x.digest = m.digest
                                                     LIMIT c.cap + 1) n) <= c.cap)
     SELECT u.player_id, o.player_id AS other_id, u.kind, min(greatest(u.first_seen_at, o.first_seen_at)) AS since
       FROM usable u JOIN signals o ON o.studio_id = $1 AND o.kind = u.kind AND o.digest = u.digest
                                   AND o.player_id <> u.player_id
      GROUP BY 1, 2, 3`,
    values: [studioId, playerIds, KINDS, CAPS],
  });
  // One entry per unordered pair: the kinds they share and since when.
  const pairs = new Map<string, { a: string; b: string; kinds: Set<SignalKind>; since: Date }>();
  for (const r of rows) {
    const [a, b] = r.player_id < r.other_id ? [r.player_id, r.other_id] : [r.other_id, r.player_id];
    const key = `${a}/${b}`;
    const pair = pairs.get(key) ?? { a, b, kinds: new Set<SignalKind>(), since: r.since };
    pair.kinds.add(r.kind);
    if (r.since < pair.since) pair.since = r.since;
    pairs.set(key, pair);
  }
  const links = [...pairs.values()].flatMap((p) => {
    const kinds = [...p.kinds].sort();
    const strength = linkStrength(kinds);
    return [
      { player_id: p.a, other_id: p.b, kinds, strength, since: p.since },
      { player_id: p.b, other_id: p.a, kinds, strength, since: p.since },
    ];
  });
  // Two statements: a row deleted and inserted again in one statement would collide with itself.
  await db.query(
    `DELETE FROM account_links WHERE studio_id = $1 AND (player_id = ANY($2::uuid[]) OR other_id = ANY($2::uuid[]))`,
    [studioId, playerIds],
  );
  if (links.length === 0) return;
  await db.query(
    `INSERT INTO account_links (player_id, studio_id, other_id, kinds, strength, linked_since, updated_at)
     SELECT l.player_id, $1, l.other_id, l.kinds, l.strength, l.since, now()
       FROM jsonb_to_recordset($2::jsonb) AS l(player_id uuid, other_id uuid, kinds text[], strength numeric, since timestamptz)
     ON CONFLICT (player_id, studio_id, other_id) DO UPDATE
        SET kinds = excluded.kinds, strength = excluded.strength, linked_since = excluded.linked_since,
            updated_at = excluded.updated_at`,
    [studioId, JSON.stringify(links)],
  );
}

/** A suspicion as the check finds it: the suspect, the banned account it is strongly linked to, and the ban. */
export interface Suspicion {
  id: string;
  /** The suspect: internal id and service id. */
  playerId: string;
  serviceId: string;
  /** The banned account it is strongly linked to. */
  bannedServiceId: string;
  sanctionId: string;
  kinds: SignalKind[];
  strength: number;
  detectedAt: Date;
  /** Detected by this check (not one already open). */
  fresh: boolean;
}

/**
 * The evasion check: for each of these players, the accounts under an active ban (temporary or
 * permanent) of the same scope (global, or this studio) that this studio's signals strongly link it
 * to, while it is not under such a ban itself. Records a suspicion for each new pair of suspect and
 * ban (one a moderator cleared stays cleared); returns every open one. Reads only the players' links
 * (an index range each) and the linked accounts' sanctions: its cost does not grow with the table.
 */
export async function detectEvasion(
  db: Queryable,
  studioId: string,
  playerIds: readonly string[],
  now: Date,
): Promise<Suspicion[]> {
  if (playerIds.length === 0) return [];
  const { rows } = await db.query<{
    id: string;
    player_id: string;
    service_id: string;
    banned_service_id: string;
    sanction_id: string;
    kinds: SignalKind[];
    strength: string;
    detected_at: Date;
    fresh: boolean;
  }>({
    name: 'signal-evasion-check',
    // ACTIVE is the one definition of a sanction in force (alias s): the linked account's ban, and
    // the suspect's own ban of the same scope, which makes evading it moot.
    text: `WITH found AS (
       SELECT l.player_id, l.other_id, l.kinds, l.strength, b.id AS sanction_id
         FROM account_links l
         CROSS JOIN LATERAL (SELECT s.id, s.scope_studio_id FROM sanctions s
                              WHERE s.player_id = l.other_id AND s.type = ANY($5::text[]) AND ${ACTIVE('$3')}
                                AND (s.scope_studio_id IS NULL OR s.scope_studio_id = $1)) b
        WHERE l.player_id = ANY($2::uuid[]) AND l.studio_id = $1 AND l.strength >= $4
          AND NOT EXISTS (SELECT 1 FROM sanctions s
                           WHERE s.player_id = l.player_id AND s.type = ANY($5::text[]) AND ${ACTIVE('$3')}
                             AND s.scope_studio_id IS NOT DISTINCT FROM b.scope_studio_id)),
     added AS (
       INSERT INTO evasion_suspicions (player_id, studio_id, banned_player_id, sanction_id, kinds, strength, detected_at)
       SELECT player_id, $1, other_id, sanction_id, kinds, strength, $3 FROM found
       ON CONFLICT (player_id, sanction_id) DO NOTHING
       RETURNING id, player_id, banned_player_id, sanction_id, kinds, strength, detected_at),
     open AS (
       SELECT a.*, true AS fresh FROM added a
       UNION ALL
       SELECT e.id, e.player_id, e.banned_player_id, e.sanction_id, e.kinds, e.strength, e.detected_at, false
         FROM evasion_suspicions e JOIN found f ON f.player_id = e.player_id AND f.sanction_id = e.sanction_id
        WHERE e.cleared_at IS NULL)
     SELECT o.id, o.player_id, p.service_id, b.service_id AS banned_service_id, o.sanction_id, o.kinds,
            o.strength, o.detected_at, o.fresh
       FROM open o JOIN players p ON p.id = o.player_id JOIN players b ON b.id = o.banned_player_id`,
    values: [studioId, playerIds, now, STRONG_LINK, BAN_TYPES],
  });
  return rows.map((r) => ({
    id: r.id,
    playerId: r.player_id,
    serviceId: r.service_id,
    bannedServiceId: r.banned_service_id,
    sanctionId: r.sanction_id,
    kinds: r.kinds,
    strength: Number(r.strength),
    detectedAt: r.detected_at,
    fresh: r.fresh,
  }));
}

/** A moderator clears an open suspicion (a household, a shared console): it stays cleared. */
export async function clearSuspicion(
  db: Queryable,
  id: string,
  moderatorId: string,
  reason: string,
  now: Date,
): Promise<'cleared' | 'already' | 'missing'> {
  const { rows } = await db.query<{ was: Date | null }>(
    `UPDATE evasion_suspicions e SET cleared_at = coalesce(e.cleared_at, $4), cleared_by = coalesce(e.cleared_by, $2),
            clear_reason = coalesce(e.clear_reason, $3)
       FROM (SELECT cleared_at AS was FROM evasion_suspicions WHERE id = $1 FOR UPDATE) old
      WHERE e.id = $1 RETURNING old.was`,
    [id, moderatorId, reason, now],
  );
  if (!rows[0]) return 'missing';
  return rows[0].was ? 'already' : 'cleared';
}

/**
 * Each new suspicion's evasion case (docs/linked-accounts.md "Evasion at the door"): the offense the
 * sign-in check filed on the suspect, named by the suspicion in the same transaction.
 */
export async function attachSuspicionOffenses(
  db: Queryable,
  pairs: readonly { suspicionId: string; offenseId: string }[],
): Promise<void> {
  if (pairs.length === 0) return;
  await db.query(
    `UPDATE evasion_suspicions e SET offense_id = p.offense_id
       FROM unnest($1::uuid[], $2::uuid[]) AS p(id, offense_id)
      WHERE e.id = p.id AND e.offense_id IS NULL`,
    [pairs.map((p) => p.suspicionId), pairs.map((p) => p.offenseId)],
  );
}

/**
 * A moderator dismissed the evasion case: its suspicions are cleared with it (the suspect reads no
 * longer as suspected, and a cleared suspicion stays cleared). Returns the ids cleared now.
 */
export async function clearSuspicionsOfOffenses(
  db: Queryable,
  offenseIds: readonly string[],
  moderatorId: string,
  reason: string,
  now: Date,
): Promise<string[]> {
  if (offenseIds.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `UPDATE evasion_suspicions SET cleared_at = $3, cleared_by = $2, clear_reason = $4
      WHERE offense_id = ANY($1::uuid[]) AND cleared_at IS NULL RETURNING id`,
    [offenseIds, moderatorId, now, reason],
  );
  return rows.map((r) => r.id);
}

/**
 * Takes back values of a player: all of them (erasure), or those first seen in a window (a stolen
 * account's: they were the thief's). The links of the player and of every holder of those values are
 * derived again (a value back under its cap links its other holders again). Returns how many went.
 */
export async function forgetSignals(
  db: Queryable,
  playerId: string,
  window?: { from: Date; to: Date },
): Promise<number> {
  const { rows } = await db.query<{ studio_id: string; kind: SignalKind; digest: Buffer; player_id: string }>(
    `DELETE FROM signals WHERE player_id = $1
        AND ($2::timestamptz IS NULL OR (first_seen_at >= $2 AND first_seen_at <= $3))
     RETURNING studio_id, kind, digest, player_id`,
    [playerId, window?.from ?? null, window?.to ?? null],
  );
  await relinkGone(db, rows);
  return rows.length;
}

/**
 * Derives again the links of the players whose values left and of the other holders of those
 * values: one derivation per studio for the whole batch.
 */
async function relinkGone(
  db: Queryable,
  gone: readonly { studio_id: string; kind: SignalKind; digest: Buffer; player_id: string }[],
): Promise<void> {
  const byStudio = new Map<string, (typeof gone)[number][]>();
  for (const g of gone) {
    const list = byStudio.get(g.studio_id);
    if (list) list.push(g);
    else byStudio.set(g.studio_id, [g]);
  }
  for (const [studioId, values] of byStudio) {
    const holders = await holdersWithin(db, studioId, values, 0);
    await relink(db, studioId, [...new Set([...values.map((v) => v.player_id), ...holders])]);
  }
}

/** An erased player leaves no value, link or suspicion behind (theirs, or about them). */
export async function eraseSignals(db: Queryable, playerId: string): Promise<number> {
  const n = await forgetSignals(db, playerId);
  await db.query('DELETE FROM account_links WHERE player_id = $1 OR other_id = $1', [playerId]);
  await db.query('DELETE FROM evasion_suspicions WHERE player_id = $1 OR banned_player_id = $1', [playerId]);
  return n;
}

/**
 * Retention: deletes the values of each kind not seen for the kind's retention period, up to `limit`
 * at a time (oldest first, by the expiry index), and derives again the links they made.
 */
export async function expireSignals(db: Queryable, now: Date, limit = 5000): Promise<number> {
  const { rows } = await db.query<{ studio_id: string; kind: SignalKind; digest: Buffer; player_id: string }>(
    `WITH rules AS (SELECT * FROM unnest($1::text[], $2::int[]) r(kind, days)),
          old AS (SELECT s.ctid FROM rules r
                   CROSS JOIN LATERAL (SELECT ctid FROM signals s
                                        WHERE s.kind = r.kind AND s.last_seen_at < $3::timestamptz - make_interval(days => r.days)
                                        ORDER BY s.last_seen_at LIMIT $4) s)
     DELETE FROM signals s USING old WHERE s.ctid = old.ctid
     RETURNING s.studio_id, s.kind, s.digest, s.player_id`,
    [KINDS, KINDS.map((k) => SIGNAL_RULES[k].retentionDays), now, limit],
  );
  await relinkGone(db, rows);
  return rows.length;
}

/**
 * Signals not seen for their kind's retention period, in batches of `batchSize`, each with the links
 * it made derived again in the same transaction; up to `maxBatches` (the rest at the next run).
 */
export async function expireSignalsDue(
  pool: Pool,
  now: Date = new Date(),
  opts: { batchSize?: number; maxBatches?: number } = {},
): Promise<number> {
  const batchSize = opts.batchSize ?? 1000;
  let total = 0;
  for (let batch = 0; batch < (opts.maxBatches ?? 100); batch++) {
    const n = await withTransaction(pool, (client) => expireSignals(client, now, batchSize));
    total += n;
    if (n < batchSize) break;
  }
  return total;
}
