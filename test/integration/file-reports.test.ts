import crypto from 'node:crypto';
import fs from 'node:fs';
import { expect } from 'chai';
import { createPool, type Pool } from '../../common/data/db.js';
import { filingItems, type ReportToRecord } from '../../common/data/repos/offenses.js';
import type { ReportKind } from '../../common/domain/reports.js';
import { createTenant, createTestPlayer, type Tenant } from '../helpers/app.js';
import { offenseJobs, reportItem } from '../helpers/reports.js';
import { testServices } from '../helpers/services.js';
import { JOB_NAMES } from '../../common/queues/index.js';
import { shardOf } from '../../common/queues/shards.js';
import { recordReports } from '../../common/data/repos/offenses.js';

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]! };
}

/**
 * The set-based filing function (pt_file_reports, common/data/functions/) against the row-by-row one it
 * replaces (pt_record_reports, migration 006; dropped by 018, its copy in reference/), kept as the reference: the same batch, from the same
 * state, must give the same outcomes and leave the same rows. Each batch runs once through each, in a
 * transaction rolled back, then is committed through the new one so the next batch starts from the
 * state it left (live duplicates, used quotas and budgets, low scores).
 */
describe('pt_file_reports: the same outcomes and rows as the row-by-row reference', function () {
  this.timeout(120_000);
  let pool: Pool;
  let tenants: Tenant[];
  let players: string[];

  before(async () => {
    pool = createPool((await testServices()).databaseUrl, 4);
    // The reference is no longer in the schema (migration 018): its copy, in a schema of its own.
    await pool.query(fs.readFileSync(new URL('reference/pt_record_reports.sql', import.meta.url), 'utf8'));
    tenants = [await createTenant(pool, 'Filing A'), await createTenant(pool, 'Filing B')];
    players = (await Promise.all(Array.from({ length: 5 }, () => createTestPlayer(pool)))).map(
      (p) => p.serviceId,
    );
    const [a] = tenants;
    // A muted reporter, a reporter of low credibility, an exhausted quota whose window has passed,
    // a budget whose window has passed, and a duplicate window that has expired.
    await pool.query(
      `INSERT INTO reporters (studio_id, reporter_id, upheld, dismissed, muted_at)
       VALUES ($1, 'muted', 0, 0, now()), ($1, 'liar', 0, 12, NULL), ($1, 'honest', 9, 0, NULL)`,
      [a!.studioId],
    );
    await pool.query(
      `INSERT INTO reporter_quota (studio_id, reporter_id, window_start, used)
       VALUES ($1, 'honest', now() - interval '25 hours', 1000)`,
      [a!.studioId],
    );
    await pool.query(
      `INSERT INTO studio_player_budget (player_id, studio_id, window_start, points)
       SELECT id, $1, now() - interval '25 hours', 1000 FROM players WHERE service_id = $2`,
      [a!.studioId, players[0]],
    );
  });
  after(async () => {
    await pool.query('DROP SCHEMA pt_reference CASCADE');
    await pool.end();
  });

  const kinds: { kind: ReportKind; flag: string }[] = [
    { kind: 'anticheat', flag: 'isCheatDetected' },
    { kind: 'toxicity', flag: 'isToxic' },
    { kind: 'afk', flag: 'isAfk' },
    { kind: 'griefing', flag: 'isGriefing' },
  ];

  function randomItem(r: ReturnType<typeof rng>): ReportToRecord {
    const { kind, flag } = r.pick(kinds);
    const tenant = r.pick(tenants);
    const reporter = r.pick([undefined, undefined, 'r1', 'r2', 'muted', 'liar', 'honest']);
    const body: Record<string, unknown> = {
      [flag]: r.next() < 0.85,
      severity: r.pick(['low', 'medium', 'high', 'critical']),
    };
    if (reporter) body.reporterId = reporter;
    if (r.next() < 0.5) body.matchId = r.pick(['m1', 'm2']);
    if (reporter && r.next() < 0.3) body.source = r.pick(['player', 'game_server']);
    const serviceId = r.next() < 0.08 ? `unknown-${Math.floor(r.next() * 3)}` : r.pick(players);
    return reportItem(tenant, serviceId, kind, body, { reporterQuota: 6, studioBudget: 45 });
  }

  /** What one function answered and left, with what differs by run (times, sequence ids) taken out. */
  async function fileWith(
    fn: 'pt_reference.pt_record_reports' | 'pt_file_reports',
    items: ReportToRecord[],
    keep: boolean,
    /** Items as the previous release's API sends them, each naming its own jobs (the reference's too). */
    perOffenseJobs = fn !== 'pt_file_reports',
  ) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const payload = perOffenseJobs
        ? filingItems(items).map(({ batchJobs: _b, queueShards: _q, ...item }) => ({
            ...item,
            jobs: offenseJobs(item.offenseId),
          }))
        : filingItems(items);
      const { rows } = await client.query<{ r: Record<string, unknown> }>(
        `SELECT r FROM ${fn}($1::jsonb) AS r`,
        [JSON.stringify(payload)],
      );
      // The jobs are compared apart: the reference writes one a job and offense, Version 2 one a
      // queue for the batch (below).
      const jobs: Record<string, unknown>[] = [];
      const outcomes = rows.map(({ r }) => {
        // A refusal's Retry-After counts down from the quota window's start: the two runs, a few
        // milliseconds apart, may round it to neighbouring seconds (compared separately below).
        if (r.status === 'quota_exceeded') return { ...r, retryAfterSeconds: 'counted' };
        if (r.status !== 'created') return r;
        const { created_at, updated_at, cursor_ts, ...offense } = r.offense as Record<string, unknown>;
        const { outbox, ...rest } = r;
        for (const row of outbox as Record<string, unknown>[])
          jobs.push({ ...row, owner: offense.id, ownerPlayer: offense.player_id });
        return {
          ...rest,
          offense: { ...offense, atNow: created_at === cursor_ts && updated_at === created_at },
        };
      });
      const studios = tenants.map((t) => t.studioId);
      const ids = items.map((i) => i.offenseId);
      const state = await client.query<{ s: unknown }>(
        `SELECT jsonb_build_object(
           'players', (SELECT jsonb_agg(jsonb_build_object('s', service_id, 'score', trust_score, 'count', offense_count,
                                        'recoveredNow', recovery_from = now(), 'updatedNow', updated_at = now())
                                        ORDER BY service_id)
                         FROM players WHERE service_id = ANY($1)),
           'offenses', (SELECT jsonb_agg(to_jsonb(o) - 'created_at' - 'updated_at' ORDER BY o.id)
                          FROM offenses o WHERE o.id = ANY($3::uuid[])),
           'history', (SELECT jsonb_agg(jsonb_build_object('player', h.player_id, 'points', h.points, 'before', h.score_before,
                                        'after', h.score_after, 'offense', h.offense_id, 'studio', h.studio_id) ORDER BY h.id)
                         FROM trust_history h WHERE h.offense_id = ANY($3::uuid[])),
           'dedup', (SELECT jsonb_agg(to_jsonb(d) - 'expires_at' || jsonb_build_object('ttl',
                                        CASE WHEN d.offense_id = ANY($3::uuid[]) THEN extract(epoch FROM d.expires_at - now())
                                             ELSE extract(epoch FROM d.expires_at) END)
                                      ORDER BY d.player_id, d.studio_id, d.reporter_id, d.type, d.match_key)
                       FROM report_dedup d WHERE d.studio_id = ANY($2::uuid[])),
           'quota', (SELECT jsonb_agg(jsonb_build_object('r', q.reporter_id, 'st', q.studio_id, 'used', q.used,
                                      'windowNow', q.window_start = now()) ORDER BY q.studio_id, q.reporter_id)
                       FROM reporter_quota q WHERE q.studio_id = ANY($2::uuid[])),
           'budget', (SELECT jsonb_agg(jsonb_build_object('p', b.player_id, 'st', b.studio_id, 'points', b.points,
                                       'windowNow', b.window_start = now()) ORDER BY b.player_id, b.studio_id)
                        FROM studio_player_budget b WHERE b.studio_id = ANY($2::uuid[]))) AS s`,
        [players, studios, ids],
      );
      const written = await client.query<{ q: string; name: string; job: string; payload: unknown }>(
        `SELECT queue AS q, job_name AS name, job_id AS job, payload FROM outbox
          WHERE payload->>'offenseId' = ANY($1::text[]) OR payload->'offenseIds' ?| $1::text[] ORDER BY id`,
        [ids],
      );
      await client.query(keep ? 'COMMIT' : 'ROLLBACK');
      return {
        outcomes,
        state: state.rows[0]!.s,
        retryAfter: rows.map(({ r }) => r.retryAfterSeconds as number),
        jobs,
        written: written.rows,
      };
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  }

  it('agrees on 40 random batches of mixed reports (duplicates, quotas, budgets, holds, unknown players)', async () => {
    const seed = Number(process.env.FILING_SEED ?? 20261122);
    const r = rng(seed);
    const seen = new Set<string>();
    for (let batch = 0; batch < 40; batch++) {
      const items = Array.from({ length: 1 + Math.floor(r.next() * 40) }, () => randomItem(r));
      const reference = await fileWith('pt_reference.pt_record_reports', items, false);
      const filed = await fileWith('pt_file_reports', items, false);
      const { retryAfter: expectedRetry, jobs: _j, written: perOffense, ...expected } = reference;
      const { retryAfter: actualRetry, jobs, written, ...actual } = filed;
      expect(actual, `seed ${seed}, batch ${batch}`).to.deep.equal(expected);
      // The reference's jobs: each created offense's two, in order. Version 2 writes the same two
      // jobs once for the batch, naming every created offense in order, in the outcome of the first.
      const created = reference.outcomes.flatMap((o) =>
        o.status === 'created' ? [(o as { offense: { id: string } }).offense.id] : [],
      );
      expect(perOffense.map((j) => (j.payload as { offenseId: string }).offenseId)).to.deep.equal(
        created.flatMap((id) => [id, id]),
      );
      const queues = perOffense.slice(0, 2).map((j) => j.q);
      expect(written, `seed ${seed}, batch ${batch}`).to.deep.equal(
        created.length === 0
          ? []
          : [
              {
                q: queues[0],
                name: JOB_NAMES.enrichOffenses,
                job: `${queues[0]}-b-${created[0]}`,
                payload: { offenseIds: created },
              },
              {
                q: queues[1],
                name: JOB_NAMES.reviewOffenses,
                job: `${queues[1]}-b-${created[0]}`,
                payload: { offenseIds: created },
              },
            ],
      );
      for (const j of jobs) {
        expect(j.owner, 'the rows are in the outcome of the first offense').to.equal(created[0]);
        expect(j.shard_key, "its shard key is the first offense's player").to.equal(j.ownerPlayer);
      }
      expect(jobs).to.have.length(written.length);
      actualRetry.forEach((s, i) => {
        if (s !== undefined) expect(s).to.be.closeTo(expectedRetry[i]!, 1);
      });
      await fileWith('pt_file_reports', items, true);
      for (const o of reference.outcomes) {
        seen.add(String(o.status));
        const offense = (o as { offense?: { status: string; status_reason: string | null } }).offense;
        if (offense) seen.add(`${offense.status}:${offense.status_reason ?? ''}`);
      }
    }
    // The batches reached every rule, so agreeing on them means something.
    expect([...seen].sort()).to.include.members([
      'created',
      'duplicate',
      'not_found',
      'quota_exceeded',
      'applied:',
      'held:studio_budget',
      'held:reporter_credibility',
      'recorded:no_finding',
      'recorded:reporter_muted',
    ]);
  });

  it("files the previous release's items (each naming its jobs) as Version 1 did: one row a job and offense", async () => {
    // A rolling deploy runs APIs of both releases against the newer function.
    const r = rng(Number(process.env.FILING_SEED ?? 20261122) + 1);
    for (let batch = 0; batch < 8; batch++) {
      const items = Array.from({ length: 1 + Math.floor(r.next() * 30) }, () => randomItem(r));
      const reference = await fileWith('pt_reference.pt_record_reports', items, false);
      const filed = await fileWith('pt_file_reports', items, false, true);
      const { retryAfter: _r1, jobs: referenceJobs, ...expected } = reference;
      const { retryAfter: _r2, jobs, ...actual } = filed;
      expect(actual, `batch ${batch}`).to.deep.equal(expected);
      expect(jobs.map(({ id: _id, shard_key: _s, ...j }) => j)).to.deep.equal(
        referenceJobs.map(({ id: _id, shard_key: _s, ...j }) => j),
      );
      for (const j of jobs) expect(j.shard_key, 'shard key').to.equal(j.ownerPlayer);
    }
  });

  it('with queue shards, one row a queue and shard, each naming the offenses of players of its shard', async () => {
    // pt_shard_of is shardOf: the statement groups by the shard the relay sends each row to.
    const keys = [...Array.from({ length: 300 }, () => crypto.randomUUID()), 'a', 'player-42'];
    for (const shards of [1, 2, 6, 7]) {
      const { rows } = await pool.query<{ s: number[] }>(
        'SELECT array_agg(pt_shard_of(k, $2) ORDER BY n) AS s FROM unnest($1::text[]) WITH ORDINALITY AS u(k, n)',
        [keys, shards],
      );
      expect(rows[0]!.s, `${shards} shards`).to.deep.equal(keys.map((k) => shardOf(k, shards)));
    }
    const many = await Promise.all(Array.from({ length: 12 }, () => createTestPlayer(pool)));
    const items = many.flatMap((p) => [
      reportItem(tenants[1]!, p.serviceId, 'afk', { isAfk: true, severity: 'low' }),
      reportItem(tenants[1]!, p.serviceId, 'toxicity', { isToxic: true, severity: 'low' }),
    ]);
    const outcomes = await recordReports(pool, items, { queueShards: 4 });
    const offenses = outcomes.map((o) => (o.status === 'created' ? o.offense : undefined));
    expect(offenses.every(Boolean)).to.equal(true);
    const { rows: ids } = await pool.query<{ service_id: string; id: string }>(
      'SELECT service_id, id::text FROM players WHERE service_id = ANY($1)',
      [many.map((p) => p.serviceId)],
    );
    const idOf = new Map(ids.map((r) => [r.service_id, r.id]));
    const playerOf = new Map(offenses.map((o) => [o!.id, idOf.get(o!.playerServiceId)!]));
    const rows = outcomes.flatMap((o) => (o.status === 'created' ? o.outbox : []));
    const byShard = new Map<number, string[]>();
    for (const o of offenses) {
      const shard = shardOf(playerOf.get(o!.id)!, 4);
      byShard.set(shard, [...(byShard.get(shard) ?? []), o!.id]);
    }
    // Two queues a shard that holds any of the players, each row's offenses in filing order.
    expect(rows).to.have.length(2 * byShard.size);
    expect(byShard.size, 'the players spread over shards').to.be.greaterThan(1);
    for (const row of rows) {
      const ids = (row.payload as { offenseIds: string[] }).offenseIds;
      const shard = shardOf(row.shard_key!, 4);
      expect(ids).to.deep.equal(byShard.get(shard));
      expect(row.shard_key).to.equal(playerOf.get(ids[0]!));
      expect(row.job_id).to.equal(`${row.queue}-b-${ids[0]}`);
    }
  });
});
