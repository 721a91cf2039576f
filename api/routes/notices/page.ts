import type { FieldError } from '../../../common/errors.js';
import { ANONYMOUS_CATEGORIES, CATEGORY_WORDS, NOTICE_CATEGORIES } from '../../../common/domain/notices.js';
import { utcWords } from '../../../common/domain/statement-of-reasons.js';
import type { NoticeReceipt, NoticeStandingView } from '../../../common/usecases/notices.js';
import crypto from 'node:crypto';
import { e, layout, STANDING_CSP } from '../standing/page.js';

/**
 * The public notice pages (DSA Art. 16; docs/moderators.md "Notices"), rendered on the server like the standing
 * page: no script (but the one that reads an e-mail's link, RECEIPT_SCRIPT), the same style and Content-Security-Policy, every text escaped, labelled fields,
 * errors tied to their fields, usable by keyboard and screen reader.
 */

export interface NoticeFormValues {
  gameId?: string;
  player?: string;
  category?: string;
  explanation?: string;
  matchId?: string;
  textEvidence?: string;
  links?: string;
  name?: string;
  email?: string;
  lifeAtRisk?: boolean;
  childInvolved?: boolean;
}

const FIELD_OF: Record<string, string> = {
  gameId: 'game',
  player: 'player',
  category: 'category',
  explanation: 'explanation',
  matchId: 'match_id',
  evidence: 'links',
  name: 'name',
  email: 'email',
  goodFaith: 'good_faith',
  statement: 'statement',
};

function errorsBlock(
  errors: FieldError[] | undefined,
  message: string | undefined,
  fallback = 'The notice has fields to correct; nothing was sent.',
) {
  if (!errors?.length && !message) return '';
  const items = (errors ?? [])
    .map((f) => {
      const root = f.field.split(/[.[]/)[0] ?? f.field;
      const id = FIELD_OF[root];
      return `<li>${id ? `<a href="#${id}">` : ''}${e(f.field)}: ${e(f.message)}${id ? '</a>' : ''}</li>`;
    })
    .join('');
  return `<div class="error" role="alert"><p>${e(message ?? fallback)}</p>${
    items ? `<ul>${items}</ul>` : ''
  }</div>`;
}

/** What the notice pages say of the notifier's data (GDPR Art. 13), from the studio's settings. */
export interface NoticePrivacy {
  controller: string;
  contact: string;
  /** RETENTION_NOTIFIER_DAYS: how long a name and e-mail are kept. */
  retentionDays: number;
}

/** The privacy notice, the same on the form and the status page. */
export function privacySection(p: NoticePrivacy): string {
  return `<section aria-labelledby="privacy-heading">
<h2 id="privacy-heading">Your personal data</h2>
<dl>
<dt>Who is responsible for it</dt><dd>${e(p.controller)}</dd>
<dt>How to reach them</dt><dd>${e(p.contact)}</dd>
<dt>What is kept, and why</dt><dd>Your name and e-mail, to handle your notice and to write to you about it (EU Digital Services Act, Art. 16), and a keyed hash of your address and e-mail to limit how many notices one sender may send and to act on manifestly unfounded ones (Art. 23). The player you report is never told who you are.</dd>
<dt>For how long</dt><dd>Your name and e-mail are deleted ${e(p.retentionDays)} days after your notice; the notice itself, its category and its outcome are kept without them.</dd>
<dt>E-mail</dt><dd>If you give your e-mail, we write to you when we receive your notice, when it is decided, and about a complaint you make: each e-mail links to your notice's page. Without one, keep your receipt (the notice id and its secret) to see where your notice stands.</dd>
<dt>Your rights</dt><dd>You may ask the contact above for access to, correction or erasure of your data, and complain to your data protection authority (GDPR Art. 15 to 17, 77).</dd>
</dl>
</section>`;
}

export function noticeFormPage(input: {
  csrf: string;
  privacy: NoticePrivacy;
  games: { id: string; title: string }[];
  values?: NoticeFormValues;
  errors?: FieldError[];
  message?: string;
}) {
  const v = input.values ?? {};
  const option = (value: string, label: string, selected: boolean) =>
    `<option value="${e(value)}"${selected ? ' selected' : ''}>${e(label)}</option>`;
  return layout(
    'Report illegal content or behaviour',
    `<h1>Report illegal content or behaviour</h1>
<p>Anyone can tell us about a player of one of these games, or what they wrote or made, that breaks the law or the game's rules (EU Digital Services Act, Art. 16). A moderator decides; we tell you what was decided and how to contest it.</p>
${errorsBlock(input.errors, input.message)}
<form method="post" action="/notice" aria-labelledby="notice-heading" novalidate>
<h2 id="notice-heading">Your notice</h2>
<input type="hidden" name="csrf" value="${e(input.csrf)}">
<label for="game">Game</label>
<select id="game" name="game" required>
${option('', 'Choose the game', !v.gameId)}
${input.games.map((g) => option(g.id, g.title, g.id === v.gameId)).join('\n')}
</select>
<label for="player">The player: their gamer tag or player id</label>
<input type="text" id="player" name="player" maxlength="64" value="${e(v.player)}" required>
<label for="category">Why: what kind of wrong</label>
<select id="category" name="category" required>
${option('', 'Choose what it is', !v.category)}
${NOTICE_CATEGORIES.map((c) => option(c, CATEGORY_WORDS[c] ?? c, c === v.category)).join('\n')}
</select>
<label for="explanation">Why it is illegal or against the rules (10 to 2000 characters)</label>
<textarea id="explanation" name="explanation" rows="6" maxlength="2000" required>${e(v.explanation)}</textarea>
<label for="match_id">The match it happened in (if you know it)</label>
<input type="text" id="match_id" name="match_id" maxlength="128" value="${e(v.matchId)}">
<label for="text_evidence">What they wrote (copy it here, if it was text)</label>
<textarea id="text_evidence" name="text_evidence" rows="4" maxlength="5000">${e(v.textEvidence)}</textarea>
<label for="links">Links to screenshots or videos (one a line, http or https)</label>
<textarea id="links" name="links" rows="3" maxlength="5000">${e(v.links)}</textarea>
<fieldset>
<legend>Is it urgent?</legend>
<p>If someone is in immediate danger, call the emergency services (112 in the EU) first.</p>
<p><input type="checkbox" id="life_at_risk" name="life_at_risk" value="yes"${v.lifeAtRisk ? ' checked' : ''}> <label for="life_at_risk" class="inline">Someone's life or safety is at risk: a threat to kill or hurt someone, or a plan to. The studio is alerted at once.</label></p>
<p><input type="checkbox" id="child_involved" name="child_involved" value="yes"${v.childInvolved ? ' checked' : ''}> <label for="child_involved" class="inline">The person harmed, or at risk, is a child (under 18).</label></p>
<p>Urgent notices are reviewed first.</p>
</fieldset>
<h3>About you</h3>
<p>We need your name and e-mail to handle the notice, except for notices about the sexual abuse or exploitation of children (Art. 16(2)(c)), which you may send without them.</p>
<label for="name">Your name</label>
<input type="text" id="name" name="name" maxlength="200" autocomplete="name" value="${e(v.name)}">
<label for="email">Your e-mail</label>
<input type="email" id="email" name="email" maxlength="254" autocomplete="email" value="${e(v.email)}">
<p><input type="checkbox" id="good_faith" name="good_faith" value="yes" required> <label for="good_faith" class="inline">I confirm, in good faith, that this notice is accurate and complete.</label></p>
<button type="submit">Send the notice</button>
</form>
<p><a href="/notice/status">Already sent one? See where it stands.</a></p>
<p>Categories you may send without your name: ${e(ANONYMOUS_CATEGORIES.map((c) => CATEGORY_WORDS[c] ?? c).join(', '))}.</p>
${privacySection(input.privacy)}`,
  );
}

export function receiptPage(r: NoticeReceipt) {
  return layout(
    'Your notice was received',
    `<h1>Your notice was received</h1>
<p class="notice" role="status">Thank you. A moderator will look at it.</p>
<p>Keep these two lines: together they let you see where your notice stands, and nobody else. The secret is shown only once.</p>
<dl>
<dt>Notice id</dt><dd>${e(r.noticeId)}</dd>
<dt>Secret</dt><dd>${e(r.secret)}</dd>
<dt>Received</dt><dd>${e(utcWords(r.receivedAt))}</dd>
</dl>
<p><a href="/notice/status">See where it stands</a></p>`,
  );
}

/**
 * The one script of the notice pages: a link from an e-mail carries the receipt in its fragment
 * (`#id=…&secret=…`, never sent to a server nor kept in its logs); the script takes it out of the
 * address bar and history, puts it in the form and sends the form. Without script, the form is shown
 * and the receipt is typed (the e-mail names the notice id). Allowed by its hash alone (RECEIPT_CSP).
 */
export const RECEIPT_SCRIPT = `(function () {
  var h = new URLSearchParams(location.hash.slice(1)), id = h.get('id'), secret = h.get('secret');
  if (!id || !secret) return;
  history.replaceState(null, '', location.pathname);
  var f = document.getElementById('receipt');
  f.elements.notice_id.value = id;
  f.elements.secret.value = secret;
  f.submit();
})();`;

/** The status form page's policy: the standing pages' own, and the receipt script by its hash. */
export const RECEIPT_CSP = STANDING_CSP.replace(
  "default-src 'none';",
  `default-src 'none'; script-src 'sha256-${crypto.createHash('sha256').update(RECEIPT_SCRIPT).digest('base64')}';`,
);

export function statusFormPage(input: {
  csrf: string;
  error?: string;
  noticeId?: string;
  fromLink?: boolean;
}) {
  return layout(
    'Where your notice stands',
    `<h1>Where your notice stands</h1>
${input.error ? `<p class="error" role="alert">${e(input.error)}</p>` : ''}
<form method="post" action="/notice/status" aria-labelledby="status-heading" id="receipt">
<h2 id="status-heading">Your receipt</h2>
<input type="hidden" name="csrf" value="${e(input.csrf)}">
<label for="notice_id">Notice id</label>
<input type="text" id="notice_id" name="notice_id" maxlength="64" value="${e(input.noticeId)}" required autocomplete="off">
<label for="secret">Secret</label>
<input type="password" id="secret" name="secret" maxlength="200" required autocomplete="off">
<button type="submit">Show</button>
</form>
<p>The link in our e-mails opens this page with your receipt filled in.</p>
<p><a href="/notice">Send a notice</a></p>${input.fromLink ? `\n<script>${RECEIPT_SCRIPT}</script>` : ''}`,
  );
}

/**
 * Where a notice stands, with the complaint's state, and while it may be contested (DSA Art. 20) the
 * form to contest it: it carries the receipt in hidden fields, so the notifier does not type it again
 * (the page is never cached: pageHeaders).
 */
export function statusPage(
  v: NoticeStandingView,
  privacy: NoticePrivacy,
  form?: {
    csrf: string;
    secret: string;
    error?: FieldError[] | string;
    statement?: string;
    textEvidence?: string;
    links?: string;
  },
) {
  const errors = typeof form?.error === 'string' ? undefined : form?.error;
  const message = typeof form?.error === 'string' ? form.error : undefined;
  const complaintForm =
    form && v.contest.possible
      ? `<h2 id="contest-heading">Contest the decision</h2>
<p>You may contest this decision until ${e(utcWords(v.contest.until!))}, free of charge. A moderator other than the one who decided reads your complaint; if they agree, the notice is reviewed again.</p>
${errorsBlock(errors, message, 'The complaint has fields to correct; nothing was sent.')}
<form method="post" action="/notice/complaint" aria-labelledby="contest-heading" novalidate>
<input type="hidden" name="csrf" value="${e(form.csrf)}">
<input type="hidden" name="notice_id" value="${e(v.noticeId)}">
<input type="hidden" name="secret" value="${e(form.secret)}">
<label for="statement">Why the decision is wrong (1 to 2000 characters)</label>
<textarea id="statement" name="statement" rows="6" maxlength="2000" required>${e(form.statement)}</textarea>
<label for="text_evidence">More of what they wrote (copy it here, if it was text)</label>
<textarea id="text_evidence" name="text_evidence" rows="4" maxlength="5000">${e(form.textEvidence)}</textarea>
<label for="links">Links to more screenshots or videos (one a line, http or https; at most 5 in all)</label>
<textarea id="links" name="links" rows="3" maxlength="5000">${e(form.links)}</textarea>
<button type="submit">Send the complaint</button>
</form>`
      : message
        ? `<p class="error" role="alert">${e(message)}</p>`
        : v.decidedAt && !v.complaint && v.contest.why
          ? `<p>${e(v.contest.why)}</p>`
          : '';
  return layout(
    'Where your notice stands',
    `<h1>Where your notice stands</h1>
<p role="status">${e(v.words)}</p>
${v.warning ? `<p class="error" role="note">${e(v.warning)}</p>` : ''}
<dl>
<dt>Notice id</dt><dd>${e(v.noticeId)}</dd>
<dt>Received</dt><dd>${e(utcWords(v.receivedAt))}</dd>
<dt>Game</dt><dd>${e(v.game)}</dd>
<dt>What it was about</dt><dd>${e(v.categoryWords)}</dd>
<dt>Where it stands</dt><dd>${e(v.status.replace('_', ' '))}</dd>
${v.decidedAt ? `<dt>Decided</dt><dd>${e(utcWords(v.decidedAt))}</dd>` : ''}
${v.automatedMeans ? `<dt>Automated means</dt><dd>${e(v.automatedMeans)}</dd>` : ''}
${v.complaint ? `<dt>Your complaint</dt><dd>${e(v.complaint.words)}</dd>` : ''}
</dl>
${complaintForm}
${v.redress ? `<h2>If you disagree</h2><p>${e(v.redress)}</p>` : ''}
<p><a href="/notice/status">Look up another notice</a></p>
${privacySection(privacy)}`,
  );
}
