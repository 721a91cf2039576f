import crypto from 'node:crypto';
import { expect } from 'chai';
import type { QueryConfig } from 'pg';
import { createPool, type Pool, type Queryable } from '../../common/data/db.js';
import { PROFILE_BATCH_MAX, ProfileReader } from '../../common/data/profile-reader.js';
import { recordOne } from '../helpers/reports.js';
import { computePenalty } from '../../common/domain/penalty.js';
import { parseReport } from '../../common/domain/reports.js';
import { createTenant, createTestPlayer, type Tenant } from '../helpers/app.js';
import { testServices } from '../helpers/services.js';

interface Profile {
  serviceId: string;
  trustScore: number;
  offenseCount: number;
  offenses: { _id: string; player: string }[];
}
/** A rendered profile read back (undefined stays undefined). */
const parse = (text: string | undefined) => (text === undefined ? undefined : (JSON.parse(text) as Profile));

describe('ProfileReader (batched profile reads)', () => {
  let pool: Pool;
  let tenant: Tenant;
  /** The real pool, with a count of the statements sent through it. */
  let statements: number;
  let counted: Queryable;

  before(async () => {
    pool = createPool((await testServices()).databaseUrl, 5);
    tenant = await createTenant(pool, 'Batch');
    counted = {
      query: ((config: QueryConfig) => {
        statements++;
        return pool.query(config);
      }) as Queryable['query'],
    };
  });
  beforeEach(() => {
    statements = 0;
  });
  after(() => pool.end());

  const report = (serviceId: string, severity: 'low' | 'critical') => {
    const parsed = parseReport('anticheat', { report: { isCheatDetected: true, severity, confidence: 0.9 } });
    if (!parsed.ok) throw new Error('bad report');
    return recordOne(pool, {
      offenseId: crypto.randomUUID(),
      serviceId,
      gameId: tenant.game.id,
      studioId: tenant.studioId,
      report: parsed.report,
      penalty: computePenalty(parsed.report, { cheating: 20, griefing: 15, toxicity: 10, afk: 5 }),
    });
  };

  it('reads that arrive together share one statement, and each gets its own player', async () => {
    const players = await Promise.all(Array.from({ length: 12 }, () => createTestPlayer(pool)));
    const scores = new Map<string, number>();
    for (const [i, p] of players.entries())
      for (let k = 0; k < i % 3; k++) scores.set(p.serviceId, (await report(p.serviceId, 'low'))!.trustScore);
    const reader = new ProfileReader(counted, 20);
    const asked = [...players.map((p) => p.serviceId), 'nobody-here', players[0]!.serviceId];
    const profiles = (await Promise.all(asked.map((id) => reader.read(id, tenant.studioId)))).map(parse);
    expect(statements).to.equal(1);
    for (const [i, p] of players.entries()) {
      const profile = profiles[i]!;
      expect(profile.serviceId).to.equal(p.serviceId);
      expect(profile.offenseCount).to.equal(i % 3);
      expect(profile.offenses.map((o) => o.player)).to.deep.equal(Array(i % 3).fill(p.serviceId));
      expect(profile.trustScore).to.equal(scores.get(p.serviceId) ?? 100);
    }
    expect(profiles[players.length]).to.equal(undefined);
    expect(profiles[players.length + 1]).to.deep.equal(profiles[0]);
  });

  it(`a burst larger than ${PROFILE_BATCH_MAX} is split; reads made apart are not held back`, async () => {
    const player = await createTestPlayer(pool);
    const reader = new ProfileReader(counted, 20);
    const burst = await Promise.all(
      Array.from({ length: PROFILE_BATCH_MAX + 1 }, () => reader.read(player.serviceId, tenant.studioId)),
    );
    expect(statements).to.equal(2);
    expect(burst.every((p) => parse(p)?.serviceId === player.serviceId)).to.equal(true);
    statements = 0;
    expect(parse(await reader.read(player.serviceId, tenant.studioId))?.serviceId).to.equal(player.serviceId);
    expect(await reader.read('nobody-here', tenant.studioId)).to.equal(undefined);
    expect(statements).to.equal(2);
  });

  it('every read sees the reports committed before it (nothing is cached between batches)', async () => {
    const player = await createTestPlayer(pool);
    const reader = new ProfileReader(counted, 20);
    let expected = 100;
    for (let i = 0; i < 4; i++) {
      const recorded = await report(player.serviceId, 'critical');
      expected = recorded!.trustScore;
      const profile = parse(await reader.read(player.serviceId, tenant.studioId));
      expect(profile?.trustScore).to.equal(expected);
      expect(profile?.offenseCount).to.equal(i + 1);
      expect(profile?.offenses[0]?._id).to.equal(recorded!.offense.id);
    }
    expect(expected).to.be.below(100);
  });

  it('a failed statement fails every read of its batch, and the next batch is read afresh', async () => {
    const player = await createTestPlayer(pool);
    let fail = true;
    const flaky: Queryable = {
      query: ((config: QueryConfig) =>
        fail ? Promise.reject(new Error('connection lost')) : pool.query(config)) as Queryable['query'],
    };
    const reader = new ProfileReader(flaky, 20);
    const outcomes = await Promise.allSettled([
      reader.read(player.serviceId, tenant.studioId),
      reader.read('nobody-here', null),
    ]);
    expect(outcomes.map((o) => o.status)).to.deep.equal(['rejected', 'rejected']);
    fail = false;
    expect(parse(await reader.read(player.serviceId, null))?.serviceId).to.equal(player.serviceId);
  });
});
