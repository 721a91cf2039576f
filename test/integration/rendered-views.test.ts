import { recordSanctionDecision } from '../../common/lifecycles/decision-record.js';
import { expect } from 'chai';
import { encodeCursor } from '../../common/cursor.js';
import { listOffenses, renderOffensePage, renderProfiles } from '../../common/data/repos/offenses.js';
import { presentOffense } from '../../common/views.js';
import {
  caseOfOffense,
  fileReport,
  createTenant,
  createTestModerator,
  createTestPlayer,
  startTestApi,
  type Tenant,
  type TestApi,
  type TestModerator,
} from '../helpers/app.js';
import { call } from '../helpers/http.js';
import { startTestWorker } from '../helpers/workers.js';
import type { RunningWorker } from '../../worker/run.js';

/** Text that JSON must escape, and characters it must not mangle. */
const AWKWARD = 'quote " backslash \\ newline\n tab\t line-sep \u2028 emoji 🎮 <b>&amp;</b> \u00e9';

/**
 * Issue 27: profiles and offense pages are rendered to JSON text by PostgreSQL and passed through.
 * They must say exactly what the JavaScript views say: every offense as presentOffense shows it to
 * the studio that filed it, to another studio and to a moderator, timestamps as toISOString writes
 * them, the next page's cursor as encodeCursor makes it, the sanctions each studio may see.
 */
describe('views rendered by PostgreSQL say what the JavaScript views say', function () {
  this.timeout(60_000);
  let api: TestApi;
  let review: RunningWorker;
  let a: Tenant;
  let b: Tenant;
  let mod: TestModerator;
  let serviceId: string;
  const LIMIT = 4;

  before(async () => {
    api = await startTestApi({ PROFILE_OFFENSES_LIMIT: String(LIMIT) });
    review = await startTestWorker(api.config, 'review');
    [a, b] = [await createTenant(api.pool, 'Render A'), await createTenant(api.pool, 'Render B')];
    mod = await createTestModerator(api);
    serviceId = (await createTestPlayer(api.pool)).serviceId;
    const file = (by: Tenant, kind: Parameters<typeof fileReport>[3], report: object) =>
      fileReport(api.url, by, serviceId, kind, report);
    await file(a, 'anticheat', {
      isCheatDetected: true,
      severity: 'critical',
      type: 'aimbot',
      confidence: '87%',
      description: AWKWARD,
      logs: ['line one', AWKWARD],
      evidence: [{ type: 'screenshot', url: 'https://cdn.example/shot.png?a=1&b=%222%22' }],
      matchId: 'm-1',
      reporterId: 'r-1',
      occurredAt: '2026-11-20T10:00:00.5Z',
    });
    const toxic = await file(a, 'toxicity', {
      isToxic: true,
      severity: 'high',
      category: 'Hate Speech',
      messages: [AWKWARD, 'second'],
    });
    await file(b, 'afk', { isAfk: false, afkDurationSeconds: 10, matchDurationSeconds: 600 });
    await file(b, 'griefing', {
      isGriefing: true,
      severity: 'low',
      affectedPlayers: ['x1', 'x2'],
      incidents: [{ severity: 'high', description: AWKWARD }],
    });
    await file(a, 'anticheat', { isCheatDetected: true, severity: 'low' });
    await file(b, 'toxicity', { isToxic: true, severity: 'low', category: 'spam' });
    // A dismissal gives the toxicity case's points back: offenses restored, resolved, resolvedAt.
    const caseId = await caseOfOffense(api.pool, toxic);
    expect(
      (
        await call(api.url, 'POST', `/v1/admin/cases/${caseId}/claim`, {
          spec: '/v1/admin/cases/{caseId}/claim',
          headers: mod.headers,
        })
      ).status,
    ).to.equal(200);
    const done = await call(api.url, 'POST', `/v1/admin/cases/${caseId}/resolve`, {
      spec: '/v1/admin/cases/{caseId}/resolve',
      headers: mod.headers,
      json: { outcome: 'dismissed', note: 'not hate speech' },
    });
    expect(done.status, done.text).to.equal(200);
    // Sanctions: global, each studio's own, one revoked, one expired.
    const { rows } = await api.pool.query<{ id: string }>('SELECT id FROM players WHERE service_id = $1', [
      serviceId,
    ]);
    const player = rows[0]!.id;
    const placed = await api.pool.query<{ id: string }>(
      `INSERT INTO sanctions (player_id, type, scope_studio_id, reason, starts_at, expires_at, revoked_at,
                              revoke_reason, issued_by_studio, created_at)
       VALUES ($1, 'chat_restriction', NULL, 'global', now() - interval '1 hour', now() + interval '1 day', NULL, NULL, $2, now() - interval '3 s'),
              ($1, 'permanent_ban', $2, 'A only', now() - interval '1 hour', NULL, NULL, NULL, $2, now() - interval '2 s'),
              ($1, 'temporary_ban', $3, 'B only', now() - interval '1 hour', now() + interval '2 days', NULL, NULL, $3, now() - interval '1 s'),
              ($1, 'warning', NULL, 'revoked', now() - interval '1 hour', NULL, now(), 'mistake', $2, now()),
              ($1, 'temporary_ban', NULL, 'expired', now() - interval '3 days', now() - interval '1 day', NULL, NULL, $2, now())
       RETURNING id`,
      [player, a.studioId, b.studioId],
    );
    // Written here by hand (their starts lie in the past), so their decision records are too.
    for (const s of placed.rows) await recordSanctionDecision(api.pool, s.id, { decidedBy: 'studio' });
  });
  after(async () => {
    await review?.stop();
    await api?.close();
  });

  const expectedOffenses = async (viewer: string | null, limit = 100) =>
    (await listOffenses(api.pool, serviceId, limit))!.items.map((o) => presentOffense(o, viewer));

  it('every offense, to the filing studio, another studio and a moderator, as presentOffense', async () => {
    const all = await listOffenses(api.pool, serviceId, 100);
    expect(all!.items.map((o) => o.status)).to.include.members(['applied', 'restored', 'recorded']);
    for (const viewer of [a.studioId, b.studioId, null]) {
      const rendered = JSON.parse((await renderOffensePage(api.pool, serviceId, viewer, 100))!) as {
        items: unknown[];
        nextCursor: string | null;
      };
      expect(rendered.items, `viewer ${viewer}`).to.deep.equal(await expectedOffenses(viewer));
      expect(rendered.nextCursor).to.equal(null);
    }
    // Somebody's text survives the trip: the filing studio reads back what it sent.
    const mine = JSON.parse((await renderOffensePage(api.pool, serviceId, a.studioId, 100))!) as {
      items: { visibility: string; description?: string }[];
    };
    expect(mine.items.map((o) => o.description)).to.include(AWKWARD);
  });

  it('pages carry the cursor encodeCursor makes, and the next page continues it', async () => {
    const first = JSON.parse((await renderOffensePage(api.pool, serviceId, a.studioId, 2))!) as {
      items: { _id: string }[];
      nextCursor: string;
    };
    const js = await listOffenses(api.pool, serviceId, 2);
    expect(first.nextCursor).to.equal(js!.nextCursor);
    const res = await call<{ items: { _id: string }[]; nextCursor: string | null }>(
      api.url,
      'GET',
      `/v1/player/${serviceId}/offenses?limit=2&cursor=${first.nextCursor}`,
      { spec: '/v1/player/{serviceId}/offenses', headers: a.headers },
    );
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    const all = await expectedOffenses(a.studioId);
    expect([...first.items, ...res.body.items].map((o) => o._id)).to.deep.equal(
      all.slice(0, 4).map((o) => o._id),
    );
  });

  it("the profile: the newest offenses as the studio may see them, the cursor past them, the studio's sanctions in force", async () => {
    const { rows } = await api.pool.query<{
      id: string;
      type: string;
      scope_studio_id: string | null;
      starts_at: Date;
      expires_at: Date | null;
      matches_left: number | null;
    }>(
      `SELECT s.id, s.type, s.scope_studio_id, s.starts_at, s.expires_at, s.matches_left FROM sanctions s JOIN players p ON p.id = s.player_id
        WHERE p.service_id = $1 AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())
        ORDER BY s.created_at DESC, s.id DESC`,
      [serviceId],
    );
    const sanctionsFor = (viewer: string | null) =>
      rows
        .filter((s) => viewer === null || s.scope_studio_id === null || s.scope_studio_id === viewer)
        .map((s) => ({
          id: s.id,
          type: s.type,
          scope: s.scope_studio_id ?? 'global',
          startsAt: s.starts_at.toISOString(),
          expiresAt: s.expires_at?.toISOString() ?? null,
          matchesLeft: s.matches_left,
        }));
    const page = await listOffenses(api.pool, serviceId, LIMIT);
    const last = page!.items[LIMIT - 1]!;
    for (const viewer of [a.studioId, b.studioId, null]) {
      const [text] = await renderProfiles(api.pool, [{ serviceId, viewerStudioId: viewer }], LIMIT);
      const profile = JSON.parse(text!) as Record<string, unknown>;
      expect(profile.offenses).to.deep.equal(await expectedOffenses(viewer, LIMIT));
      expect(profile.offenseCount).to.equal(6);
      expect(profile.offensesNextCursor).to.equal(encodeCursor(last.cursorTs, last.id));
      expect(profile.activeSanctions, `viewer ${viewer}`).to.deep.equal(sanctionsFor(viewer));
    }
    expect(sanctionsFor(a.studioId).map((s) => s.type)).to.deep.equal(['permanent_ban', 'chat_restriction']);
    // Through the API, as studio B: the same text, checked against the OpenAPI document by call().
    const res = await call<Record<string, unknown>>(api.url, 'GET', `/v1/player/${serviceId}`, {
      spec: '/v1/player/{serviceId}',
      headers: b.headers,
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    expect(res.body.activeSanctions).to.deep.equal(sanctionsFor(b.studioId));
    expect(res.body.offenses).to.deep.equal(await expectedOffenses(b.studioId, LIMIT));
    // Written compact, as every other answer: it came as `{"serviceId" : ...}` with json_agg's line
    // breaks between items. (The stored documents of the studio's own offenses, details, evidence and
    // context, are as PostgreSQL writes a jsonb value: `{"category": "spam"}`.)
    expect(res.text).not.to.match(/" : |,\s*\n/);
    expect(res.text.startsWith('{"serviceId":')).to.equal(true);
  });

  it('asks for one player by several studios at once in one statement, each its own view; unknown players are absent', async () => {
    const texts = await renderProfiles(
      api.pool,
      [
        { serviceId, viewerStudioId: a.studioId },
        { serviceId: 'nobody-at-all', viewerStudioId: a.studioId },
        { serviceId, viewerStudioId: b.studioId },
      ],
      LIMIT,
    );
    expect(texts[1]).to.equal(undefined);
    const [forA, forB] = [JSON.parse(texts[0]!), JSON.parse(texts[2]!)] as {
      offenses: { visibility: string; studio?: string }[];
    }[];
    expect(
      forA!.offenses.filter((o) => o.visibility === 'full').every((o) => o.studio === a.studioId),
    ).to.equal(true);
    expect(
      forB!.offenses.filter((o) => o.visibility === 'full').every((o) => o.studio === b.studioId),
    ).to.equal(true);
  });
});
