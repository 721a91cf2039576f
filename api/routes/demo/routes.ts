import { Router } from '@koa/router';
import { escapeHtml } from '../oauth/page.js';

/**
 * Development only: the redirect URI of the seeded demo game, so the OAuth flow can be tried from a
 * browser without writing a client. It shows the code and the curl command that exchanges it.
 */
export function demoRoutes(issuer: string): Router {
  const router = new Router();
  router.get('/demo/callback', (ctx) => {
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : undefined;
    const error = typeof ctx.query.error === 'string' ? ctx.query.error : undefined;
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    ctx.type = 'text/html; charset=utf-8';
    const body = code
      ? `<p>Authorization code (valid 10 minutes, single use):</p><pre>${escapeHtml(code)}</pre>
<p>Exchange it (demo credentials from the <code>npm start</code> output):</p>
<pre>curl -s -X POST ${escapeHtml(issuer)}/v1/oauth/token -H 'content-type: application/json' \\
  -d '{"grant_type":"authorization_code","code":"${escapeHtml(code)}","client_id":"$CID","client_secret":"$SECRET","redirect_uri":"${escapeHtml(issuer)}/demo/callback"}'</pre>`
      : `<p>The authorization ended with <code>${escapeHtml(error ?? 'no code')}</code>.</p>`;
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo game callback</title></head><body style="font-family:system-ui;max-width:48rem;margin:2rem auto">
<h1>Demo game callback</h1>${body}</body></html>`;
  });
  return router;
}
