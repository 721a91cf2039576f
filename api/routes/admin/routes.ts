import { Router } from '@koa/router';
import type { Context } from 'koa';
import { studioNames } from '../../../common/data/repos/accounts.js';
import { isUuid } from '../../../common/domain/ids.js';
import { decodeKeys, encodeKeys, invalidCursor } from '../../../common/cursor.js';
import { check } from '../../../common/validation.js';
import {
  findCase,
  listAudit,
  listCases,
  reviewStats,
  type CaseFilter,
} from '../../../common/data/repos/moderation.js';
import { findCaseOffenses } from '../../../common/data/repos/offenses.js';
import { AppError, notFound } from '../../../common/errors.js';
import {
  assertMayWork,
  assignCase,
  claimCase,
  escalateCase,
  releaseCase,
  resolveCase,
  setReporterMute,
  type Actor,
} from '../../../common/usecases/moderation.js';
import { presentAudit, presentCase, presentOffense, presentReporter } from '../../../common/views.js';
import { findCaseReporters } from '../../../common/data/repos/reporters.js';
import type { ApiDeps } from '../../deps.js';
import { signInModerator } from './sign-in.js';
import { auditQuery, caseQuery, statsQuery } from './schema.js';
import { moderatorPlayerView, playerTimeline, queueCounts } from '../../../common/usecases/player-view.js';
import { queueStats, visibleQueue } from '../../../common/usecases/review-queues.js';
import { visibilitiesSeenBy } from '../../../common/data/repos/review-queues.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { exportQuery, openPlayerExport } from '../../../common/usecases/player-export.js';
import { sendExport } from '../players/export.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

const isTimestamp = (s: string) => !Number.isNaN(Date.parse(s));

/** A case cursor carries the status it pages, so it cannot be replayed against the other ordering. */
function decodeCaseCursor(cursor: string, ordering: string): string[] | undefined {
  const keys = decodeKeys(cursor, (k) =>
    k[0] === 'open'
      ? k.length === 4 && /^-?\d+(\.\d+)?$/.test(k[1]!) && isTimestamp(k[2]!) && isUuid(k[3]!)
      : (k[0] === 'resolved' || k[0] === 'open-age') && k.length === 3 && isTimestamp(k[1]!) && isUuid(k[2]!),
  );
  return keys && keys[0] === ordering ? keys.slice(1) : undefined;
}

/** What a case cursor pages: open by priority, open by age, or resolved. */
const orderingOf = (q: { status: string; sort?: string }) =>
  q.status === 'open' && q.sort === 'age' ? 'open-age' : q.status;

const caseId = (ctx: Context) => param(ctx, 'caseId');

/** The moderator API: sign-in, the review queue, case actions, and (admins) the audit log. */
export function adminRoutes(deps: ApiDeps): Router {
  const router = new Router({ prefix: '/v1/admin' });
  const auth = moderatorAuth(deps);
  const actorOf = (ctx: Context) => ctx.state.actor as Actor;

  router.post('/session', requireJsonBody(), async (ctx) => {
    const m = await signInModerator(deps, ctx);
    ctx.body = {
      access_token: await deps.moderatorTokens.sign(m.id),
      token_type: 'Bearer',
      expires_in: deps.moderatorTokens.lifetime,
      moderator: { id: m.id, username: m.username, displayName: m.displayName, role: m.role },
    } satisfies Answer<Paths, '/v1/admin/session', 'post'>;
  });

  router.get('/cases', auth, async (ctx) => {
    const q = check<Omit<CaseFilter, 'moderatorId'> & { limit: number; cursor?: string }>(
      caseQuery,
      ctx.query,
      'query',
    );
    const actor = actorOf(ctx);
    if (q.escalated !== 'exclude' && actor.role !== 'admin')
      throw new AppError(403, 'forbidden', 'Escalated cases are for admins.');
    // A queue only admins see is not found by others; without one, theirs are left out of the list.
    if (q.queue !== undefined) await visibleQueue(deps.pool, actor, q.queue);
    const after = q.cursor === undefined ? undefined : decodeCaseCursor(q.cursor, orderingOf(q));
    if (q.cursor !== undefined && !after) throw invalidCursor();
    const visibilities = visibilitiesSeenBy(actor.role);
    const page = await listCases(deps.pool, { ...q, moderatorId: actor.id, visibilities }, q.limit, after);
    ctx.body = {
      items: page.items.map(presentCase),
      nextCursor: page.next && encodeKeys([orderingOf(q), ...page.next]),
    } satisfies Answer<Paths, '/v1/admin/cases', 'get'>;
  });

  router.get('/cases/:caseId', auth, async (ctx) => {
    const id = caseId(ctx);
    const c = await findCase(deps.pool, id);
    if (!c) throw notFound(`Case ${id}`);
    assertMayWork(actorOf(ctx), c);
    const [offenses, audit, reporters] = await Promise.all([
      findCaseOffenses(deps.pool, id),
      listAudit(deps.pool, { caseId: id }, 100),
      findCaseReporters(deps.pool, id),
    ]);
    ctx.body = {
      ...presentCase(c),
      // Moderators see every offense in full, enrichment results included.
      offenses: offenses.map((o) => presentOffense(o, null)),
      reporters: reporters.map(presentReporter),
      audit: audit.items.map(presentAudit),
      studioNames: await studioNames(deps.pool, [
        ...offenses.map((o) => o.studioId),
        ...reporters.map((r) => r.studioId),
      ]),
    } satisfies Answer<Paths, '/v1/admin/cases/{caseId}', 'get'>;
  });

  router.post('/cases/:caseId/claim', auth, async (ctx) => {
    ctx.body = presentCase(
      await claimCase(deps.pool, actorOf(ctx), caseId(ctx), deps.config.caseLeaseSeconds),
    ) satisfies Answer<Paths, '/v1/admin/cases/{caseId}/claim', 'post'>;
  });

  router.post('/cases/:caseId/escalate', auth, requireJsonBody(), async (ctx) => {
    ctx.body = presentCase(
      await escalateCase(deps.pool, actorOf(ctx), caseId(ctx), ctx.request.body ?? {}),
    ) satisfies Answer<Paths, '/v1/admin/cases/{caseId}/escalate', 'post'>;
  });

  router.post(
    '/cases/:caseId/assign',
    moderatorAuth(deps, { role: 'admin' }),
    requireJsonBody(),
    async (ctx) => {
      ctx.body = presentCase(
        await assignCase(deps.pool, actorOf(ctx), caseId(ctx), ctx.request.body ?? {}),
      ) satisfies Answer<Paths, '/v1/admin/cases/{caseId}/assign', 'post'>;
    },
  );

  router.post('/cases/:caseId/release', auth, async (ctx) => {
    ctx.body = presentCase(await releaseCase(deps.pool, actorOf(ctx), caseId(ctx))) satisfies Answer<
      Paths,
      '/v1/admin/cases/{caseId}/release',
      'post'
    >;
  });

  router.post('/cases/:caseId/resolve', auth, requireJsonBody(), async (ctx) => {
    const result = await resolveCase(
      deps.pool,
      actorOf(ctx),
      caseId(ctx),
      ctx.request.body ?? {},
      deps.clock(),
      {
        ttlDays: deps.config.strikeTtlDays,
        ladder: deps.config.strikeLadder,
        appealWindowDays: deps.config.appealWindowDays,
      },
      { protectedTags: deps.config.protectedTags, permanentBans: deps.config.fourEyesPermanentBans },
      deps.config.noticeComplaintDays,
    );
    deps.dispatcher.enqueue(result.outbox);
    ctx.body = presentCase(result.case) satisfies Answer<Paths, '/v1/admin/cases/{caseId}/resolve', 'post'>;
  });

  for (const [action, muted] of [
    ['mute', true],
    ['unmute', false],
  ] as const) {
    router.post(
      `/studios/:studioId/reporters/:reporterId/${action}`,
      auth,
      requireJsonBody(),
      async (ctx) => {
        const reporterId = param(ctx, 'reporterId');
        const studioId = param(ctx, 'studioId');
        const reporter = await setReporterMute(deps.pool, actorOf(ctx), {
          studioId,
          reporterId,
          muted,
          body: ctx.request.body ?? {},
        });
        ctx.body = presentReporter(reporter) satisfies Answer<
          Paths,
          '/v1/admin/studios/{studioId}/reporters/{reporterId}/mute',
          'post'
        > &
          Answer<Paths, '/v1/admin/studios/{studioId}/reporters/{reporterId}/unmute', 'post'>;
      },
    );
  }

  router.get('/queue-counts', auth, async (ctx) => {
    ctx.body = (await queueCounts(deps.pool, actorOf(ctx).role)) satisfies Answer<
      Paths,
      '/v1/admin/queue-counts',
      'get'
    >;
  });

  router.get('/players/:serviceId/timeline', auth, async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    ctx.body = { items: await playerTimeline(deps.pool, serviceId) } satisfies Answer<
      Paths,
      '/v1/admin/players/{serviceId}/timeline',
      'get'
    >;
  });

  router.get('/players/:serviceId', auth, async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    ctx.body = (await moderatorPlayerView(deps.pool, serviceId, deps.clock())) satisfies Answer<
      Paths,
      '/v1/admin/players/{serviceId}',
      'get'
    >;
  });

  // A player's record for an admin: the internal export, or the player's copy (GDPR Art. 15, 20) to
  // hand to the player answering their request.
  router.get('/players/:serviceId/export', moderatorAuth(deps, { role: 'admin' }), async (ctx) => {
    const serviceId = param(ctx, 'serviceId');
    const { copy } = check<{ copy?: 'player' }>(exportQuery, ctx.query, 'query');
    const chunks = await openPlayerExport(
      deps.pool,
      serviceId,
      copy === 'player' ? { kind: 'player' } : { kind: 'admin' },
      { now: deps.clock(), appealWindowDays: deps.config.appealWindowDays, caps: deps.config.penaltyCaps },
    );
    sendExport(ctx, serviceId, chunks, copy === 'player' ? 'player-copy' : 'internal-export');
  });

  router.get('/stats', auth, async (ctx) => {
    const { days } = check<{ days: number }>(statsQuery, ctx.query, 'query');
    const [review, queues] = await Promise.all([
      reviewStats(deps.pool, days),
      queueStats(deps.pool, actorOf(ctx), days),
    ]);
    ctx.body = { ...review, ...queues } satisfies Answer<Paths, '/v1/admin/stats', 'get'>;
  });

  router.get('/audit', moderatorAuth(deps, { role: 'admin' }), async (ctx) => {
    const q = check<{
      caseId?: string;
      moderatorId?: string;
      moderator?: string;
      player?: string;
      limit: number;
      cursor?: string;
    }>(auditQuery, ctx.query, 'query');
    const before =
      q.cursor === undefined
        ? undefined
        : decodeKeys(q.cursor, (k) => k.length === 1 && /^\d{1,18}$/.test(k[0]!));
    if (q.cursor !== undefined && !before) throw invalidCursor();
    const page = await listAudit(deps.pool, q, q.limit, before?.[0]);
    ctx.body = {
      items: page.items.map(presentAudit),
      nextCursor: page.next && encodeKeys([page.next]),
    } satisfies Answer<Paths, '/v1/admin/audit', 'get'>;
  });

  return router;
}
