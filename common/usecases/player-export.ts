import Joi from 'joi';
import { signalDates } from '../data/repos/signals.js';
import type { Pool } from '../data/db.js';
import { decodeCursor } from '../cursor.js';
import { listPlayerAppeals } from '../data/repos/appeals.js';
import { renderOffenseItems } from '../data/repos/offenses.js';
import {
  accusedWordsOfPlayer,
  findPlayerFor,
  gamesOfPlayer,
  notesAboutPlayer,
  strikesOfPlayer,
  tagsOfPlayer,
} from '../data/repos/player-records.js';
import { conductSummariesOf } from '../data/repos/conduct.js';
import { listSanctions } from '../data/repos/sanctions.js';
import { listTrustHistory } from '../data/repos/trust.js';
import { SERVICE_ID } from '../domain/players.js';
import { notFound } from '../errors.js';
import { presentConductSummary } from '../domain/conduct.js';
import { presentAppeal, presentSanction, presentTrustChange } from '../views.js';
import { playerDecisions, type DecisionsPolicy } from './decisions.js';

/** An admin's export: the internal one by default, or the player's copy to hand to the player. */
export const exportQuery = Joi.object({
  copy: Joi.string()
    .valid('player')
    .description(
      "player: the player's copy (the answer to their data-access request), not the internal export.",
    ),
});

/** Rows read at a time: an export of any length holds one page in memory, not the history. */
const PAGE = 500;

/** What each part of an export is (its manifest), and which viewers get it. */
const PARTS = {
  player: 'Who the player is: service id, full name, gamer tag, trust score, KYC flag, since when.',
  games: 'The games the player is linked to, and since when.',
  offenses:
    'Every report about the player, newest first, as the viewer may see it (a moderator in full: description, evidence with its enrichment, reporter and match ids; a studio its own reports in full, the others as a summary).',
  trustHistory: 'Every change of the trust score, newest first, with its reason.',
  sanctions: 'Every sanction placed on the player (a studio: those it may see), with its reason.',
  strikes: 'Every strike (counted towards the strike ladder), whether active, expired or removed.',
  appeals: "The player's appeals, in their own words, and what was decided.",
  statementsOfReasons: 'Every decision about the player, each with its statement of reasons (DSA Art. 17).',
  accusedWords:
    "The chat lines you are reported to have written, as the game sent them with each toxicity report (the reporter's own words and who reported you are not given: they are other people's data, GDPR Art. 15(4)).",
  notes: "Moderators' internal notes about the player and their cases.",
  tags: "Moderators' labels on the player.",
  signals:
    "The kinds of value the studios sent about the player's sign-ins and sessions (a device, an install, a network, a payment instrument, a verified phone or e-mail, a platform account), each with when it was first and last seen: never a value, which the service does not keep (only a keyed hash of it, docs/studios.md, Linked accounts).",
  conductSummaries:
    "The conduct summaries the player was given (a studio: those of its games), newest first: matches played, finished and left early, reports and the parties that filed them, commendations, the strike ladder's next step and any warning.",
  reportsFiled:
    "Reports the player filed as a reporter: none can be tied to them, as a studio's reporterId is the studio's own id and the service does not know whom it names (docs/compliance.md, Personal data).",
} as const;

/** The parts each viewer gets: a studio what its own reads show; moderators' notes and tags to admins. */
const PARTS_OF: Record<ExportViewer['kind'], ReadonlySet<string>> = {
  // The internal export holds every offense in full (its chat lines among its evidence).
  admin: new Set(Object.keys(PARTS).filter((k) => k !== 'accusedWords')),
  studio: new Set([
    'player',
    'games',
    'offenses',
    'trustHistory',
    'sanctions',
    'appeals',
    'signals',
    'conductSummaries',
    'reportsFiled',
  ]),
  player: new Set(Object.keys(PARTS).filter((k) => k !== 'notes' && k !== 'tags')),
};

/**
 * What each export is, named for what it is (issue 50): the internal one holds other people's data
 * (reporters' ids, what studios wrote, moderators' notes) and is not an answer to the player's
 * request; the player's copy is.
 */
const KIND_OF: Record<ExportViewer['kind'], { kind: string; title: string }> = {
  admin: {
    kind: 'internal',
    title:
      "Internal export of everything held about the player, for moderators and the operator: it holds other people's data (reporters, studios' words, moderators' notes), so it is not the answer to the player's data-access request. The player's copy is.",
  },
  studio: {
    kind: 'studio',
    title: "What the studio's own reads show about its player.",
  },
  player: {
    kind: 'player copy',
    title:
      "The player's copy of their data (GDPR Art. 15 and 20): their account, games, the reports about them and the words they are reported to have written, their trust history, sanctions, strikes, appeals and every decision with its reasons. Other people's data is left out (Art. 15(4)).",
  },
};

/**
 * Who asks: an admin moderator (everything), a studio (its own players, what its reads show), or the
 * player (their own record, the reports about them as a summary: who reported them and what a
 * studio wrote stay the studio's, GDPR Art. 15(4)).
 */
export type ExportViewer = { kind: 'admin' } | { kind: 'studio'; studioId: string } | { kind: 'player' };

/** The studio id reads are rendered for: null in full; no studio's (the nil id) as a summary. */
const NO_STUDIO = '00000000-0000-0000-0000-000000000000';
const renderFor = (v: ExportViewer) =>
  v.kind === 'admin' ? null : v.kind === 'studio' ? v.studioId : NO_STUDIO;

/**
 * The whole record of one player (GDPR Art. 15 and 20; issue 36) as one JSON document, produced as
 * chunks of text: a manifest of its parts, then each part, the long ones (offenses, trust history,
 * sanctions, statements of reasons) read page by page, so memory stays bounded however long the
 * history. Checked before the first chunk: the player exists and, for a studio, plays its games
 * (404 otherwise, as its other reads answer).
 */
export async function openPlayerExport(
  pool: Pool,
  serviceId: string,
  viewer: ExportViewer,
  policy: DecisionsPolicy,
): Promise<AsyncGenerator<string>> {
  if (!SERVICE_ID.test(serviceId)) throw notFound(`Player ${serviceId}`);
  const p = await findPlayerFor(pool, serviceId, viewer.kind === 'studio' ? viewer.studioId : null);
  if (!p) throw notFound(`Player ${serviceId}`);
  const parts = Object.entries(PARTS).filter(([k]) => PARTS_OF[viewer.kind].has(k));
  const studioId = renderFor(viewer);

  async function* chunks(): AsyncGenerator<string> {
    const manifest = {
      format: 'player-trust player export',
      version: 1,
      generatedAt: policy.now.toISOString(),
      serviceId: p!.service_id,
      ...KIND_OF[viewer.kind],
      viewer:
        viewer.kind === 'admin'
          ? 'moderator (admin)'
          : viewer.kind === 'studio'
            ? `studio ${viewer.studioId}`
            : 'the player',
      parts: Object.fromEntries(parts),
    };
    yield `{"manifest":${JSON.stringify(manifest)}`;
    const wanted = new Set(parts.map(([k]) => k));
    const part = (name: string) => `,${JSON.stringify(name)}:`;

    yield (
      part('player') +
      JSON.stringify({
        serviceId: p!.service_id,
        fullName: p!.full_name,
        gamerTag: p!.gamer_tag,
        trustScore: p!.trust_score,
        isKycVerified: p!.is_kyc_verified,
        createdAt: p!.created_at.toISOString(),
      })
    );
    const games = await gamesOfPlayer(pool, p!.id);
    yield (
      part('games') +
      JSON.stringify(games.map((g) => ({ title: g.title, linkedAt: g.linked_at.toISOString() })))
    );

    // Offenses, rendered by PostgreSQL as each viewer reads them, a page at a time.
    yield `${part('offenses')}[`;
    let after: { ts: string; id: string } | undefined;
    let first = true;
    for (;;) {
      // Rendered by PostgreSQL and sent as rendered: no parse, no second stringify.
      const page = await renderOffenseItems(pool, serviceId, studioId, PAGE, after);
      if (page?.items.length) {
        yield (first ? '' : ',') + page.items.join(',');
        first = false;
      }
      if (!page?.nextCursor) break;
      after = decodeCursor(page.nextCursor);
    }
    yield ']';

    yield `${part('trustHistory')}[`;
    let before: string | undefined;
    first = true;
    for (;;) {
      const page = await listTrustHistory(pool, serviceId, PAGE, before);
      const items = (page?.items ?? []).map((h) => presentTrustChange(h, studioId));
      if (items.length) {
        yield (first ? '' : ',') + items.map((i) => JSON.stringify(i)).join(',');
        first = false;
      }
      if (!page?.next) break;
      before = page.next;
    }
    yield ']';

    yield `${part('sanctions')}[`;
    let sanctionsAfter: { ts: string; id: string } | undefined;
    first = true;
    for (;;) {
      const page = await listSanctions(pool, {
        serviceId,
        // The player sees every sanction on them, as moderators do.
        viewerStudioId: viewer.kind === 'studio' ? viewer.studioId : null,
        activeOnly: false,
        limit: PAGE,
        after: sanctionsAfter,
        now: policy.now,
      });
      const items = (page?.items ?? []).map(presentSanction);
      if (items.length) {
        yield (first ? '' : ',') + items.map((i) => JSON.stringify(i)).join(',');
        first = false;
      }
      if (!page?.next) break;
      sanctionsAfter = page.next;
    }
    yield ']';

    if (wanted.has('strikes')) {
      const strikes = await strikesOfPlayer(pool, p!.id);
      yield (
        part('strikes') +
        JSON.stringify(
          strikes.map((s) => ({
            caseId: s.case_id,
            createdAt: s.created_at.toISOString(),
            expiresAt: s.expires_at.toISOString(),
            removedAt: s.removed_at?.toISOString() ?? null,
          })),
        )
      );
    }

    const appeals = await listPlayerAppeals(
      pool,
      serviceId,
      viewer.kind === 'studio' ? viewer.studioId : null,
      100_000,
    );
    yield part('appeals') + JSON.stringify(appeals.map(presentAppeal));

    if (wanted.has('statementsOfReasons')) {
      yield `${part('statementsOfReasons')}[`;
      let decisionsAfter: { ts: string; id: string } | undefined;
      first = true;
      for (;;) {
        const page = await playerDecisions(pool, serviceId, policy, PAGE, decisionsAfter);
        if (page.items.length) {
          yield (first ? '' : ',') + page.items.map((i) => JSON.stringify(i)).join(',');
          first = false;
        }
        if (!page.next) break;
        decisionsAfter = page.next;
      }
      yield ']';
    }

    if (wanted.has('accusedWords')) {
      yield `${part('accusedWords')}[`;
      let wordsAfter: { at: Date; id: string } | undefined;
      first = true;
      for (;;) {
        const page = await accusedWordsOfPlayer(pool, p!.id, PAGE, wordsAfter);
        if (page.length) {
          yield (
            (first ? '' : ',') +
            page
              .map((w) =>
                JSON.stringify({
                  offenseId: w.offense_id,
                  reportedAt: w.created_at.toISOString(),
                  words: w.words,
                }),
              )
              .join(',')
          );
          first = false;
        }
        if (page.length < PAGE) break;
        const last = page[page.length - 1]!;
        wordsAfter = { at: last.created_at, id: last.offense_id };
      }
      yield ']';
    }

    if (wanted.has('notes')) {
      const notes = await notesAboutPlayer(pool, p!.id);
      yield (
        part('notes') +
        JSON.stringify(
          notes.map((n) => ({
            body: n.body,
            caseId: n.case_id,
            author: n.author,
            createdAt: n.created_at.toISOString(),
          })),
        )
      );
    }
    if (wanted.has('tags')) {
      const tags = await tagsOfPlayer(pool, p!.id);
      yield part('tags') + JSON.stringify(tags);
    }
    if (wanted.has('signals'))
      yield (
        part('signals') +
        JSON.stringify(await signalDates(pool, p!.id, viewer.kind === 'studio' ? viewer.studioId : null))
      );
    if (wanted.has('conductSummaries')) {
      const mine = await conductSummariesOf(pool, p!.id, viewer.kind === 'studio' ? viewer.studioId : null);
      yield part('conductSummaries') + JSON.stringify(mine.map(presentConductSummary));
    }
    yield `${part('reportsFiled')}[]}`;
  }
  return chunks();
}
