import { Router } from '@koa/router';
import type { Context } from 'koa';
import type { Moderator } from '../../../common/data/repos/moderation.js';
import { AppError } from '../../../common/errors.js';
import {
  fileComplaint,
  fileNotice,
  flaggerOfKey,
  listFlaggers,
  listNotices,
  noticeGames,
  noticeStanding,
  registerFlagger,
  reportOutcome,
  setFlaggerStatus,
  type NoticeDeps,
  type NoticeSender,
} from '../../../common/usecases/notices.js';
import type { ApiDeps } from '../../deps.js';
import type { AuthenticatedClient } from '../../middleware/client-auth.js';
import { requireJsonBody } from '../../middleware/errors.js';
import { moderatorAuth } from '../../middleware/moderator-auth.js';
import { formPages } from '../standing/form-pages.js';
import {
  liftMeasure,
  listMeasures,
  markOffenseUnfounded,
  measuresQuerySchema,
} from '../../../common/usecases/misuse.js';
import type { Actor } from '../../../common/usecases/moderation.js';
import { check } from '../../../common/validation.js';
import {
  noticeFormPage,
  RECEIPT_CSP,
  receiptPage,
  statusFormPage,
  statusPage,
  type NoticeFormValues,
} from './page.js';
import type { Answer } from '../../contract-types.js';
import type { paths } from './contract.js';
import { param } from '../../params.js';

type Paths = typeof paths;

const CSRF_COOKIE = 'pt_notice_csrf';
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Notices (DSA Art. 16, 22; issue 37; docs/moderators.md "Notices"): the public form (/notice) and the notifier's
 * page (/notice/status), rendered without script like the standing page, with a CSRF token bound to
 * a cookie of their own; the JSON routes for games, tools and trusted flaggers (a flagger's key in
 * Authorization: Bearer); the outcome of a game's report for its in-game reporter; and the trusted
 * flaggers, for admins.
 */
/** A form's evidence: the text copied in, and one link a line (a video by its extension, else a screenshot). */
function evidenceOfForm(text: string, links: string) {
  return [
    ...(text.trim() ? [{ type: 'text', content: text }] : []),
    ...links
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean)
      .map((url) => ({ type: /\.(mp4|webm|mov)(\?|$)/i.test(url) ? 'video' : 'screenshot', url })),
  ];
}

export function noticeRoutes(deps: ApiDeps): Router {
  const router = new Router();
  const privacy = {
    ...deps.config.noticePrivacy,
    retentionDays: deps.config.retentionDays.notifierContacts,
  };
  const noticeDeps: NoticeDeps = {
    pool: deps.pool,
    pepper: deps.pepper,
    caps: deps.config.penaltyCaps,
    defaults: deps.config.limits,
    credibility: {
      threshold: deps.config.credibilityThreshold,
      minHistory: deps.config.credibilityMinHistory,
    },
    quotas: { perAddress: deps.config.noticeQuotaPerAddress, perEmail: deps.config.noticeQuotaPerEmail },
    misuse: deps.config.misuse,
    complaintDays: deps.config.noticeComplaintDays,
    filing: { queueShards: deps.config.queueShards },
  };
  const {
    headers: pageHeaders,
    csrfToken,
    csrfValid,
  } = formPages({
    pepper: deps.pepper,
    issuer: deps.issuer,
    path: '/notice',
    cookie: CSRF_COOKIE,
    scope: 'notice',
  });
  function formProblem(ctx: Context): string | undefined {
    if (!ctx.is('application/x-www-form-urlencoded')) {
      ctx.status = 415;
      return 'Send the notice with the form of this page.';
    }
    if (!csrfValid(ctx)) {
      ctx.status = 403;
      return 'This form expired or did not come from this page. Try again.';
    }
    return undefined;
  }

  // The form.
  router.get('/notice', async (ctx) => {
    pageHeaders(ctx);
    ctx.body = noticeFormPage({ csrf: csrfToken(ctx), privacy, games: await noticeGames(deps.pool) });
  });
  router.post('/notice', async (ctx) => {
    pageHeaders(ctx);
    // The games only when the form is shown again: a notice taken needs none.
    const problem = formProblem(ctx);
    if (problem) {
      ctx.body = noticeFormPage({
        privacy,
        csrf: csrfToken(ctx),
        games: await noticeGames(deps.pool),
        message: problem,
      });
      return;
    }
    const f = ctx.request.body as Record<string, unknown>;
    const values: NoticeFormValues = {
      gameId: str(f.game),
      player: str(f.player),
      category: str(f.category),
      explanation: str(f.explanation),
      matchId: str(f.match_id),
      textEvidence: str(f.text_evidence),
      links: str(f.links),
      name: str(f.name),
      email: str(f.email),
      lifeAtRisk: str(f.life_at_risk) === 'yes',
      childInvolved: str(f.child_involved) === 'yes',
    };
    const body = {
      gameId: values.gameId || undefined,
      player: values.player || undefined,
      category: values.category || undefined,
      explanation: values.explanation,
      ...(values.matchId?.trim() ? { matchId: values.matchId } : {}),
      evidence: evidenceOfForm(values.textEvidence ?? '', values.links ?? ''),
      ...(values.name?.trim() ? { name: values.name } : {}),
      ...(values.email?.trim() ? { email: values.email } : {}),
      lifeAtRisk: values.lifeAtRisk,
      childInvolved: values.childInvolved,
      goodFaith: str(f.good_faith) === 'yes',
    };
    try {
      const { receipt, outbox } = await fileNotice(
        noticeDeps,
        body,
        { kind: 'public', address: ctx.ip },
        deps.clock(),
      );
      deps.dispatcher.enqueue(outbox);
      ctx.status = 201;
      ctx.body = receiptPage(receipt);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      ctx.status = err.status;
      if (err.headers) for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      ctx.body = noticeFormPage({
        privacy,
        csrf: csrfToken(ctx),
        games: await noticeGames(deps.pool),
        values,
        errors: err.fields,
        message: err.fields?.length ? undefined : err.detail,
      });
    }
  });

  // The notifier's page.
  router.get('/notice/status', (ctx) => {
    pageHeaders(ctx);
    // The page an e-mail's link opens: its script reads the receipt from the fragment.
    ctx.set('Content-Security-Policy', RECEIPT_CSP);
    ctx.body = statusFormPage({ csrf: csrfToken(ctx), fromLink: true });
  });
  /**
   * A form sent with a receipt (the status page's, the complaint's): its id, secret and fields, or
   * undefined when the page already answered (a form that is not this page's).
   */
  function receiptForm(ctx: Context) {
    pageHeaders(ctx);
    const problem = formProblem(ctx);
    if (problem) {
      ctx.body = statusFormPage({ csrf: csrfToken(ctx), error: problem });
      return undefined;
    }
    const f = ctx.request.body as Record<string, unknown>;
    return { id: (str(f.notice_id) ?? '').trim(), secret: str(f.secret) ?? '', fields: f };
  }
  /** No notice has this id and secret: the lookup form again, saying so (one answer for every case). */
  function noSuchReceipt(ctx: Context, id: string) {
    ctx.status = 404;
    ctx.body = statusFormPage({
      csrf: csrfToken(ctx),
      noticeId: id,
      error: 'No notice has this id and secret. Check both against your receipt.',
    });
  }
  router.post('/notice/status', async (ctx) => {
    const form = receiptForm(ctx);
    if (!form) return;
    const { id, secret } = form;
    try {
      ctx.body = statusPage(await noticeStanding(noticeDeps, id, secret, deps.clock()), privacy, {
        csrf: csrfToken(ctx),
        secret,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status !== 404) throw err;
      noSuchReceipt(ctx, id);
    }
  });

  // The notifier's complaint (Art. 20), from the status page.
  router.post('/notice/complaint', async (ctx) => {
    const form = receiptForm(ctx);
    if (!form) return;
    const { id, secret } = form;
    const statement = str(form.fields.statement) ?? '';
    const textEvidence = str(form.fields.text_evidence) ?? '';
    const links = str(form.fields.links) ?? '';
    const evidence = evidenceOfForm(textEvidence, links);
    try {
      const { standing, outbox } = await fileComplaint(
        noticeDeps,
        id,
        secret,
        { statement, ...(evidence.length ? { evidence } : {}) },
        deps.clock(),
      );
      deps.dispatcher.enqueue(outbox);
      ctx.status = 201;
      ctx.body = statusPage(standing, privacy, { csrf: csrfToken(ctx), secret });
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      if (err.status === 404) return noSuchReceipt(ctx, id);
      ctx.status = err.status;
      const standing = await noticeStanding(noticeDeps, id, secret, deps.clock());
      // A refusal that is not about the statement (already contested, suspended) shows as a message.
      ctx.body = statusPage(standing, privacy, {
        csrf: csrfToken(ctx),
        secret,
        error: err.fields?.length ? err.fields : err.detail,
        statement,
        textEvidence,
        links,
      });
    }
  });

  // JSON: games, tools and trusted flaggers.
  router.get('/v1/notices/games', async (ctx) => {
    ctx.body = { items: await noticeGames(deps.pool) } satisfies Answer<Paths, '/v1/notices/games', 'get'>;
  });
  router.post('/v1/notices', requireJsonBody(), async (ctx) => {
    const auth = ctx.get('authorization');
    let sender: NoticeSender = { kind: 'public', address: ctx.ip };
    if (auth) {
      const key = /^Bearer\s+(\S+)$/i.exec(auth)?.[1];
      if (!key)
        throw new AppError(
          401,
          'invalid_flagger_key',
          'Authorization must be "Bearer <trusted flagger key>".',
        );
      const f = await flaggerOfKey(deps.pool, key);
      sender = { kind: 'flagger', flagger: { id: f.id, name: f.name, areas: f.areas } };
    }
    const { receipt, outbox } = await fileNotice(noticeDeps, ctx.request.body, sender, deps.clock());
    deps.dispatcher.enqueue(outbox);
    ctx.status = 201;
    ctx.set('Location', `/v1/notices/${receipt.noticeId}`);
    ctx.body = receipt satisfies Answer<Paths, '/v1/notices', 'post', 201>;
  });
  router.get('/v1/notices/:noticeId', async (ctx) => {
    ctx.body = (await noticeStanding(
      noticeDeps,
      param(ctx, 'noticeId'),
      ctx.get('notice-secret'),
      deps.clock(),
    )) satisfies Answer<Paths, '/v1/notices/{noticeId}', 'get'>;
  });
  router.post('/v1/notices/:noticeId/complaint', requireJsonBody(), async (ctx) => {
    const { standing, outbox } = await fileComplaint(
      noticeDeps,
      param(ctx, 'noticeId'),
      ctx.get('notice-secret'),
      ctx.request.body,
      deps.clock(),
    );
    deps.dispatcher.enqueue(outbox);
    ctx.status = 201;
    ctx.body = standing satisfies Answer<Paths, '/v1/notices/{noticeId}/complaint', 'post', 201>;
  });

  // A game's in-game reporter: the outcome of a report it filed with a reporterId.
  router.get(
    '/v1/reports/:reportId/outcome',
    deps.clientAuth.middleware(),
    deps.rateLimits.middleware('reads'),
    async (ctx) => {
      const client = ctx.state.client as AuthenticatedClient;
      ctx.body = (await reportOutcome(
        deps.pool,
        param(ctx, 'reportId'),
        client.studioId,
        deps.config.misuse,
        deps.clock(),
      )) satisfies Answer<Paths, '/v1/reports/{reportId}/outcome', 'get'>;
    },
  );

  // Notices and misuse (Art. 23), for moderators; lifting a suspension, for admins.
  const admin = moderatorAuth(deps, { role: 'admin' });
  const moderator = moderatorAuth(deps);
  router.get('/v1/admin/notices', moderator, async (ctx) => {
    ctx.body = (await listNotices(deps.pool, ctx.query)) satisfies Answer<Paths, '/v1/admin/notices', 'get'>;
  });
  router.post('/v1/admin/offenses/:offenseId/unfounded', moderator, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = (await markOffenseUnfounded(
      deps.pool,
      ctx.state.actor as Actor,
      param(ctx, 'offenseId'),
      ctx.request.body,
      deps.config.misuse,
      deps.clock(),
    )) satisfies Answer<Paths, '/v1/admin/offenses/{offenseId}/unfounded', 'post', 201>;
  });
  router.get('/v1/admin/misuse/measures', moderator, async (ctx) => {
    const q = check<{ inForce: boolean; limit: number }>(measuresQuerySchema, ctx.query, 'query');
    ctx.body = (await listMeasures(deps.pool, q, deps.clock())) satisfies Answer<
      Paths,
      '/v1/admin/misuse/measures',
      'get'
    >;
  });
  router.post('/v1/admin/misuse/measures/:measureId/lift', admin, requireJsonBody(), async (ctx) => {
    ctx.body = (await liftMeasure(
      deps.pool,
      ctx.state.actor as Actor,
      param(ctx, 'measureId'),
      ctx.request.body,
      deps.clock(),
    )) satisfies Answer<Paths, '/v1/admin/misuse/measures/{measureId}/lift', 'post'>;
  });

  // Trusted flaggers, for admins.
  router.get('/v1/admin/trusted-flaggers', admin, async (ctx) => {
    ctx.body = (await listFlaggers(deps.pool)) satisfies Answer<Paths, '/v1/admin/trusted-flaggers', 'get'>;
  });
  router.post('/v1/admin/trusted-flaggers', admin, requireJsonBody(), async (ctx) => {
    ctx.status = 201;
    ctx.body = (await registerFlagger(
      deps.pool,
      ctx.request.body,
      (ctx.state.moderator as Moderator).id,
    )) satisfies Answer<Paths, '/v1/admin/trusted-flaggers', 'post', 201>;
  });
  router.post('/v1/admin/trusted-flaggers/:flaggerId/suspend', admin, requireJsonBody(), async (ctx) => {
    ctx.body = (await setFlaggerStatus(
      deps.pool,
      param(ctx, 'flaggerId'),
      { suspend: true, body: ctx.request.body },
      (ctx.state.moderator as Moderator).id,
    )) satisfies Answer<Paths, '/v1/admin/trusted-flaggers/{flaggerId}/suspend', 'post'>;
  });
  router.post('/v1/admin/trusted-flaggers/:flaggerId/reinstate', admin, async (ctx) => {
    ctx.body = (await setFlaggerStatus(
      deps.pool,
      param(ctx, 'flaggerId'),
      { suspend: false },
      (ctx.state.moderator as Moderator).id,
    )) satisfies Answer<Paths, '/v1/admin/trusted-flaggers/{flaggerId}/reinstate', 'post'>;
  });
  return router;
}
