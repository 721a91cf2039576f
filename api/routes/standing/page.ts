import crypto from 'node:crypto';
import { utcWords, type StatementOfReasons } from '../../../common/domain/statement-of-reasons.js';
import { escapeHtml } from '../oauth/page.js';
import type { View } from '../../../common/view-schemas.js';

/**
 * The player's standing page, rendered on the server: no script at all, one inline style allowed by
 * its hash (so the Content-Security-Policy needs no 'unsafe-inline'), every text escaped, labelled
 * forms, landmarks and headings in order, usable by keyboard and screen reader.
 */
const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
  main { max-width: 46rem; margin: 2rem auto; background: #fff; padding: 2rem; border-radius: 8px; box-shadow: 0 1px 4px #0002; }
  h1 { font-size: 1.5rem; margin-top: 0; } h2 { font-size: 1.2rem; margin-top: 2rem; } h3 { font-size: 1.05rem; margin-bottom: .25rem; }
  label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
  label.inline { display: inline; margin: 0; }
  input[type=text], input[type=email], input[type=password], select, textarea { width: 100%; box-sizing: border-box; padding: .5rem; font-size: 1rem; border: 1px solid #6b7385; border-radius: 4px; }
  input:focus, button:focus, select:focus, textarea:focus, a:focus { outline: 3px solid #2848c8; outline-offset: 2px; }
  button { padding: .55rem 1.1rem; font-size: 1rem; border-radius: 4px; border: 1px solid #2848c8; background: #2848c8; color: #fff; cursor: pointer; margin-top: .75rem; }
  button.secondary { background: #fff; color: #2848c8; }
  .error { background: #fde8e8; border: 1px solid #c62828; padding: .75rem; border-radius: 4px; }
  .notice { background: #e7f5ea; border: 1px solid #2e7d32; padding: .75rem; border-radius: 4px; }
  .score { font-size: 2rem; font-weight: 700; }
  article.decision { border: 1px solid #d4d8e0; border-radius: 6px; padding: 1rem; margin: 1rem 0; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .5rem 0; }
  dt { font-weight: 600; } dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #e1e4ea; }
  details { margin-top: .75rem; }
`;
/** The Content-Security-Policy of every standing page: nothing but this page's own style. */
export const STANDING_CSP = `default-src 'none'; style-src 'sha256-${crypto
  .createHash('sha256')
  .update(STYLE)
  .digest('base64')}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

export const e = (v: string | number | null | undefined) => escapeHtml(String(v ?? ''));
const when = (iso: string | null) => (iso ? utcWords(iso) : '—');

/** A page of this look (the standing and notice pages): the style its CSP allows, `body` in main. */
export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

export function signInPage(input: {
  csrf: string;
  error?: string | undefined;
  gamerTag?: string | undefined;
}) {
  return layout(
    'Your standing: sign in',
    `<h1>Your standing</h1>
<p>Sign in with your player account to see your trust score, the decisions about you and why they were made, and to appeal them.</p>
${input.error ? `<p class="error" role="alert">${e(input.error)}</p>` : ''}
<form method="post" action="/standing/sign-in" aria-labelledby="signin-heading">
<h2 id="signin-heading">Sign in</h2>
<input type="hidden" name="csrf" value="${e(input.csrf)}">
<label for="gamer_tag">Gamer tag</label>
<input type="text" id="gamer_tag" name="gamer_tag" autocomplete="username" maxlength="64" value="${e(input.gamerTag)}" required autofocus>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" maxlength="256" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export interface StandingView {
  gamerTag: string;
  trustScore: number;
  history: { at: string; change: number; after: number; reason: string }[];
  strikes: { expiresAt: string }[];
  decisions: StatementOfReasons[];
  /** The latest conduct summaries, newest first (docs/studios.md "Conduct summaries"). */
  conduct: {
    at: string;
    studio: string;
    trigger: 'matches' | 'restriction';
    text: string;
    warning: string | null;
  }[];
  csrf: string;
  notice?: string | undefined;
  error?: string | undefined;
}

const REASONS = [
  ['incorrect', 'The decision is wrong: I did not do this'],
  ['compromised_account', 'Someone else used my account'],
  ['unfair', 'The decision is too harsh'],
  ['forgiveness', 'I understand, and ask for another chance'],
] as const;

const REASON_WORDS = new Map<string, string>(REASONS);

const HISTORY_WORDS: Record<string, string> = {
  offense: 'a report against you',
  held_released: 'held points taken after review',
  dismissal: 'points given back: a report was dismissed',
  recovery: 'recovery for clean play',
  appeal: 'points given back: your appeal was granted',
};

function decisionArticle(d: StatementOfReasons, csrf: string, index: number): string {
  const id = `decision-${index}`;
  const appeal = d.appeal;
  const form = appeal.possible
    ? `<details><summary>Appeal this decision (until ${e(when(appeal.deadline))})</summary>
<form method="post" action="/standing/appeal" aria-label="Appeal: ${e(d.decision)}">
<input type="hidden" name="csrf" value="${e(csrf)}">
<input type="hidden" name="${d.kind === 'sanction' ? 'sanctionId' : 'offenseId'}" value="${e(d.id)}">
<label for="${id}-reason">Why</label>
<select id="${id}-reason" name="reason" required>${REASONS.map(([v, t]) => `<option value="${v}">${e(t)}</option>`).join('')}</select>
<label for="${id}-statement">Your statement (what the moderator should know)</label>
<textarea id="${id}-statement" name="statement" rows="4" maxlength="2000" required></textarea>
<button type="submit">File the appeal</button>
</form></details>`
    : '';
  const f = appeal.filed;
  const filed = f
    ? `<section class="appeal" aria-label="Your appeal"><p>Your appeal: <strong>${e(f.status)}</strong>${f.decidedAt ? ` on ${e(when(f.decidedAt))}, by a moderator (a person)` : ''}${f.note ? `. The moderator's note: ${e(f.note)}` : ''}</p>
<dl><dt>Why you appealed</dt><dd>${e(REASON_WORDS.get(f.reason) ?? f.reason)}</dd><dt>Your statement</dt><dd>${e(f.statement)}</dd></dl>
${f.remains.length ? `<p>What stays in force:</p><ul>${f.remains.map((r) => `<li>${e(r)}</li>`).join('')}</ul>` : ''}</section>`
    : '';
  return `<article class="decision" aria-labelledby="${id}-title">
<h3 id="${id}-title">${e(d.decision)}</h3>
<dl>
<dt>Decided</dt><dd>${e(when(d.decidedAt))}</dd>
<dt>Where</dt><dd>${d.scope.kind === 'global' ? 'Every game' : `The games of ${e(d.scope.name)}`}</dd>
${d.period ? `<dt>Period</dt><dd>${e(when(d.period.startsAt))} to ${d.period.endsAt ? e(when(d.period.endsAt)) : 'no end'}</dd>` : ''}
<dt>Facts</dt><dd>${e(d.facts)}</dd>
<dt>Why</dt><dd>${e(d.ground)}</dd>
<dt>Automated</dt><dd>${d.automated ? `Yes. ${e(d.automatedMeans)}` : 'No: a person decided it.'}</dd>
<dt>Now</dt><dd>${e(d.state)}</dd>
<dt>Appeal</dt><dd>${e(appeal.how)}</dd>
<dt>Beyond an appeal</dt><dd>${e(d.redress)}</dd>
</dl>
${filed}${form}
</article>`;
}

export function standingPage(v: StandingView): string {
  const active = v.decisions.filter((d) => d.kind === 'sanction' && d.state.startsWith('In force'));
  return layout(
    `Your standing, ${v.gamerTag}`,
    `<h1>Your standing, ${e(v.gamerTag)}</h1>
${v.notice ? `<p class="notice" role="status">${e(v.notice)}</p>` : ''}
${v.error ? `<p class="error" role="alert">${e(v.error)}</p>` : ''}
<section aria-labelledby="score-heading">
<h2 id="score-heading">Trust score</h2>
<p><span class="score" data-testid="trust-score">${e(v.trustScore)}</span> of 100</p>
${
  v.history.length
    ? `<table aria-labelledby="score-heading"><caption>The latest changes</caption><thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col">Score</th><th scope="col">Why</th></tr></thead><tbody>${v.history
        .map(
          (h) =>
            `<tr><td>${e(when(h.at))}</td><td>${h.change > 0 ? '+' : ''}${e(h.change)}</td><td>${e(h.after)}</td><td>${e(HISTORY_WORDS[h.reason] ?? h.reason)}</td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>No changes yet.</p>'
}
</section>
<section aria-labelledby="sanctions-heading">
<h2 id="sanctions-heading">Sanctions in force</h2>
${active.length ? `<ul>${active.map((d) => `<li>${e(d.decision)}</li>`).join('')}</ul>` : '<p>None.</p>'}
</section>
<section aria-labelledby="strikes-heading">
<h2 id="strikes-heading">Strikes</h2>
${
  v.strikes.length
    ? `<ul>${v.strikes.map((s) => `<li>A strike, until ${e(when(s.expiresAt))}</li>`).join('')}</ul>`
    : '<p>None.</p>'
}
</section>
<section aria-labelledby="conduct-heading">
<h2 id="conduct-heading">Conduct summaries</h2>
${
  v.conduct.length
    ? `<ul>${v.conduct
        .map(
          (c) =>
            `<li data-testid="conduct-summary"><p>${e(when(c.at))}, in ${e(c.studio)}'s games: ${e(c.text)}</p>${
              c.warning ? `<p class="warning"><strong>${e(c.warning)}</strong></p>` : ''
            }</li>`,
        )
        .join('')}</ul>`
    : '<p>None yet: a summary comes every few matches you play, and when a restriction begins.</p>'
}
</section>
<section aria-labelledby="decisions-heading">
<h2 id="decisions-heading">Decisions about you, and why</h2>
${v.decisions.length ? v.decisions.map((d, i) => decisionArticle(d, v.csrf, i)).join('\n') : '<p>None.</p>'}
</section>
<section aria-labelledby="data-heading">
<h2 id="data-heading">Your data</h2>
<p><a href="/standing/record">Read your data</a>: your account, your games, the reports about you and the
words you are reported to have written, your trust history, sanctions, strikes, appeals and every decision
with its reasons. <a href="/standing/export" download>Download the same as a JSON file</a> (to keep, or to
take to another service).</p>
</section>
<form method="post" action="/standing/sign-out" aria-label="Sign out">
<input type="hidden" name="csrf" value="${e(v.csrf)}">
<button type="submit" class="secondary">Sign out</button>
</form>`,
  );
}

/** The player's copy of their data, as its schema declares it (common/view-schemas.ts PlayerExport). */
export type PlayerCopy = View<'PlayerExport'>;

const table = (caption: string, head: string[], rows: (string | number | null)[][]) =>
  rows.length === 0
    ? `<p>None.</p>`
    : `<table aria-label="${e(caption)}"><thead><tr>${head.map((h) => `<th scope="col">${e(h)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${e(c)}</td>`).join('')}</tr>`).join('\n')}</tbody></table>`;

/**
 * The player's copy of their data, readable (issue 50): the same document as the JSON download
 * beside it, section by section, every value escaped. Nothing here that the download does not hold.
 */
export function recordPage(d: PlayerCopy): string {
  const p = d.player;
  const words = d.accusedWords ?? [];
  return layout(
    'Your data',
    `<h1>Your data</h1>
<p>${e(d.manifest.title)}</p>
<p>Made ${e(when(d.manifest.generatedAt))}. <a href="/standing/export" download>Download the same as a JSON file</a> (machine-readable, to take elsewhere: GDPR Art. 20). <a href="/standing">Back to your standing</a>.</p>
<section aria-labelledby="account-heading"><h2 id="account-heading">Your account</h2>
<dl><dt>Service id</dt><dd>${e(p.serviceId)}</dd><dt>Name</dt><dd>${e(p.fullName)}</dd><dt>Gamer tag</dt><dd>${e(p.gamerTag)}</dd>
<dt>Trust score</dt><dd>${e(p.trustScore)}</dd><dt>Identity verified (KYC)</dt><dd>${p.isKycVerified ? 'yes' : 'no'}</dd><dt>Since</dt><dd>${e(when(p.createdAt))}</dd></dl></section>
<section aria-labelledby="games-heading"><h2 id="games-heading">Your games</h2>
${table(
  'Your games',
  ['Game', 'Linked'],
  d.games.map((g) => [g.title, when(g.linkedAt)]),
)}</section>
<section aria-labelledby="reports-heading"><h2 id="reports-heading">Reports about you</h2>
<p>Every report about you, newest first, as a summary: who reported you and what they wrote are other people's data (GDPR Art. 15(4)).</p>
${table(
  'Reports about you',
  ['When', 'Kind', 'Severity', 'Points', 'Where it stands'],
  d.offenses.map((o) => [when(o.createdAt), o.type, o.severity, o.penaltyPoints, o.status]),
)}</section>
<section aria-labelledby="words-heading"><h2 id="words-heading">Words you are reported to have written</h2>
<p>${e(d.manifest.parts.accusedWords ?? '')}</p>
${words.length ? words.map((w) => `<h3>${e(when(w.reportedAt))}</h3><dl><dt>Chat</dt><dd>${e(w.words)}</dd></dl>`).join('\n') : '<p>None.</p>'}</section>
<section aria-labelledby="trust-heading"><h2 id="trust-heading">Your trust score over time</h2>
${table(
  'Your trust score over time',
  ['When', 'Change', 'Score after', 'Why'],
  d.trustHistory.map((h) => [
    when(h.createdAt),
    h.points > 0 ? `+${h.points}` : h.points,
    h.scoreAfter,
    h.reason,
  ]),
)}</section>
<section aria-labelledby="sanctions-heading"><h2 id="sanctions-heading">Sanctions</h2>
${table(
  'Sanctions',
  ['Kind', 'Where', 'From', 'Until', 'Revoked', 'Reason'],
  d.sanctions.map((s) => [
    s.type.replace(/_/g, ' '),
    s.scope === 'global' ? 'every game' : 'one studio’s games',
    when(s.startsAt),
    s.matches && s.matches.left > 0
      ? `${s.matches.left} of ${s.matches.total} matches left to finish`
      : s.expiresAt
        ? `${when(s.expiresAt)}${s.matches ? ` (its ${s.matches.total} matches finished)` : ''}`
        : 'no end',
    s.revokedAt ? when(s.revokedAt) : '—',
    s.reason,
  ]),
)}</section>
<section aria-labelledby="strikes-heading"><h2 id="strikes-heading">Strikes</h2>
${table(
  'Strikes',
  ['Given', 'Counts until', 'Removed'],
  (d.strikes ?? []).map((s) => [when(s.createdAt), when(s.expiresAt), s.removedAt ? when(s.removedAt) : '—']),
)}</section>
<section aria-labelledby="appeals-heading"><h2 id="appeals-heading">Your appeals</h2>
${table(
  'Your appeals',
  ['Filed', 'Reason', 'Your words', 'Outcome'],
  d.appeals.map((a) => [when(a.createdAt), a.reason, a.statement, a.status]),
)}</section>
<section aria-labelledby="decisions-heading"><h2 id="decisions-heading">Decisions about you</h2>
<p>Each with its full statement of reasons is on <a href="/standing">your standing page</a>; the download holds them too.</p>
${table(
  'Decisions about you',
  ['Decided', 'Decision'],
  (d.statementsOfReasons ?? []).map((s) => [when(s.decidedAt), s.decision]),
)}</section>`,
  );
}
