import fs from 'node:fs';
import path from 'node:path';
import { Router } from '@koa/router';
import { DEMO_PKCE_VERIFIER } from '../../../common/usecases/seed.js';
import { escapeHtml } from '../oauth/page.js';

/** Single-quoted for a POSIX shell: the value as is, whatever it holds. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Development only: the redirect URI of the seeded demo game, so the OAuth flow can be tried from a
 * browser without writing a client. It shows the code and a curl command that exchanges it as is:
 * the demo game's credentials (read from DATA_DIR, where `npm start` keeps them) and the demo PKCE
 * verifier of the sign-in link `npm start` prints, written into the command.
 */
export function demoRoutes(issuer: string, dataDir: string): Router {
  const router = new Router();
  router.get('/demo/callback', (ctx) => {
    const code = typeof ctx.query.code === 'string' ? ctx.query.code : undefined;
    const error = typeof ctx.query.error === 'string' ? ctx.query.error : undefined;
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    ctx.type = 'text/html; charset=utf-8';
    let client = { clientId: '<client_id>', clientSecret: '<client_secret>' };
    try {
      const demo = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as {
        game: { clientId: string; clientSecret: string };
      };
      client = demo.game;
    } catch {
      // No demo data here: the command shows placeholders to fill in.
    }
    const request = JSON.stringify({
      grant_type: 'authorization_code',
      code,
      client_id: client.clientId,
      client_secret: client.clientSecret,
      redirect_uri: `${issuer}/demo/callback`,
      code_verifier: DEMO_PKCE_VERIFIER,
    });
    const curl = `curl -s -X POST ${shellQuote(`${issuer}/v1/oauth/token`)} -H 'content-type: application/json' \\\n  -d ${shellQuote(request)}`;
    const body = code
      ? `<p>Authorization code (valid 10 minutes, single use):</p><pre>${escapeHtml(code)}</pre>
<p>Exchange it for an access token (copy and run as is):</p>
<pre>${escapeHtml(curl)}</pre>
<p>The code works once: a failed exchange uses it up too, so sign in again for a new one. The command
carries the demo PKCE verifier of the sign-in link <code>npm start</code> prints; for a sign-in started
without <code>code_challenge</code>, leave <code>code_verifier</code> out.</p>`
      : `<p>The authorization ended with <code>${escapeHtml(error ?? 'no code')}</code>.</p>`;
    ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo game callback</title></head><body style="font-family:system-ui;max-width:48rem;margin:2rem auto">
<h1>Demo game callback</h1>${body}</body></html>`;
  });
  return router;
}
