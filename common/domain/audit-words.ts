import type { SanctionType } from './sanctions.js';

/**
 * What a moderator or a studio did, in words, from one audit entry: the one rendering the audit log
 * (its `summary`) and a player's timeline both show, so the two never say it differently. Names, not
 * identifiers: the queue by its name, a sanction by its kind and where it applies, to whom a case was
 * assigned.
 */
export interface AuditFacts {
  action: string;
  outcome: string | null;
  details: Record<string, unknown>;
  /** The name of the queue the entry names (an escalation, a routing change), when it has one. */
  queueName: string | null;
  /** The studio a placed or revoked sanction is limited to, by name (null: every game). */
  scopeName: string | null;
}

/** A sanction's kind as a noun with its article ('a temporary ban'): the audit log's and a ground's words. */
export const SANCTION: Record<SanctionType, string> = {
  warning: 'a warning',
  chat_restriction: 'a chat restriction',
  matchmaking_restriction: 'a matchmaking restriction',
  temporary_ban: 'a temporary ban',
  permanent_ban: 'a permanent ban',
};

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const count = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

function sanctionWords(e: AuditFacts): string {
  const type = str(e.details.type) as SanctionType | null;
  const what = (type && SANCTION[type]) ?? 'a sanction';
  const scope = e.details.scope;
  // Where it applies only when the entry says (an entry that does not say is not "every game").
  const where =
    scope === 'global'
      ? ' in every game'
      : typeof scope === 'string'
        ? ` in the games of ${e.scopeName ?? 'one studio'}`
        : '';
  return `${what}${where}`;
}

/** A misuse entry's sender (usecases/misuse.ts presentSender), in words: never an e-mail or address. */
function senderWords(v: unknown): string {
  const s = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  if (s.kind === 'reporter') return `reporter ${str(s.reporterId) ?? ''}`.trim();
  if (s.kind === 'trusted_flagger') return `trusted flagger ${str(s.name) ?? ''}`.trim();
  return 'a notifier';
}

export function auditInWords(e: AuditFacts): string {
  const d = e.details;
  const name = e.queueName ?? str(d.queue);
  const queue = name ? `the ${name} queue` : 'a queue';
  switch (e.action) {
    case 'claim':
      return 'Claimed the case';
    case 'release':
      return 'Gave the claim up';
    case 'resolve':
      return e.outcome === 'upheld'
        ? 'Upheld the case'
        : e.outcome === 'dismissed'
          ? 'Dismissed the case'
          : 'Resolved the case';
    case 'mute_reporter':
      return `Muted reporter ${str(d.reporterId) ?? ''}`.trim();
    case 'unmute_reporter':
      return `Unmuted reporter ${str(d.reporterId) ?? ''}`.trim();
    case 'place_sanction':
      // The ladder and a rule decide on their own: the entry names them, not the moderator beside it.
      return d.strikeLadder === true
        ? `The strike ladder placed ${sanctionWords(e)} (the upheld case added a strike)`
        : d.ruleId !== undefined
          ? `A rule placed ${sanctionWords(e)}`
          : `Placed ${sanctionWords(e)}`;
    case 'revoke_sanction':
      return `Revoked ${sanctionWords(e)}`;
    case 'claim_appeal':
      return 'Claimed an appeal';
    case 'release_appeal':
      return 'Gave an appeal up';
    case 'decide_appeal': {
      const granted = d.decision === 'granted';
      const parts = granted
        ? [
            typeof d.pointsRefunded === 'number' && d.pointsRefunded > 0
              ? `${d.pointsRefunded} points given back`
              : null,
            count(d.sanctionsRevoked) ? `${count(d.sanctionsRevoked)} sanction(s) revoked` : null,
            count(d.sanctionsKept) ? `${count(d.sanctionsKept)} kept in force` : null,
          ].filter((p): p is string => p !== null)
        : [];
      if (d.complaint === true) {
        const done = [
          str(d.reopenedCaseId) ? 'the case reopened' : null,
          d.markWithdrawn === true ? 'its unfounded mark withdrawn' : null,
        ].filter((p): p is string => p !== null);
        return granted
          ? `Granted a notifier's complaint${done.length ? ` (${done.join('; ')})` : ''}`
          : "Denied a notifier's complaint";
      }
      return `${granted ? 'Granted' : 'Denied'} an appeal${parts.length ? ` (${parts.join('; ')})` : ''}`;
    }
    case 'add_note':
      return 'Added a note';
    case 'assign':
      return str(d.assignedTo) ? `Assigned the case to ${str(d.assignedTo)}` : 'Took the assignment back';
    case 'escalate':
      return d.to === 'queue' ? `Moved the case to ${queue}` : 'Escalated the case to the senior role';
    case 'edit_routing':
      return d.change === 'rules'
        ? `Saved the routing rules (${typeof d.rerouted === 'number' ? d.rerouted : 0} open cases moved)`
        : d.change === 'create_queue'
          ? `Added ${queue}`
          : d.change === 'archive_queue'
            ? `Archived ${queue}`
            : `Changed ${queue}`;
    case 'register_flagger':
      return `Registered ${str(d.name) ?? 'an organisation'} as a trusted flagger`;
    case 'suspend_flagger':
      return `Suspended trusted flagger ${str(d.name) ?? ''}`.trim();
    case 'reinstate_flagger':
      return `Reinstated trusted flagger ${str(d.name) ?? ''}`.trim();
    case 'mark_unfounded':
      return `Marked ${d.appealId ? 'a complaint' : 'a report'} manifestly unfounded (${senderWords(d.sender)}: ${typeof d.marks === 'number' ? d.marks : 1} in the window)`;
    case 'warn_sender':
      return `Warned ${senderWords(d.sender)} for manifestly unfounded reports (DSA Art. 23)`;
    case 'suspend_sender':
      return `Suspended ${senderWords(d.sender)} until ${str(d.endsAt) ?? 'the end of the period'} (DSA Art. 23)`;
    case 'lift_suspension':
      return `Lifted the suspension of ${senderWords(d.sender)}`;
    case 'create_wave':
    case 'approve_wave':
    case 'cancel_wave':
    case 'roll_back_wave': {
      const verb = {
        create_wave: 'Made',
        approve_wave: 'Approved',
        cancel_wave: 'Cancelled',
        roll_back_wave: 'Rolled back',
      }[e.action];
      const type = str(d.type) as SanctionType | null;
      const size = typeof d.size === 'number' ? d.size : 0;
      const name = str(d.name);
      const what = (type && SANCTION[type]) ?? 'a sanction';
      return `${verb} the wave${name ? ` ${name}` : ''} (${what} for ${size} ${size === 1 ? 'player' : 'players'})`;
    }
    case 'save_rule':
      return `Saved the rule${str(d.name) ? ` ${str(d.name)}` : ''} (version ${typeof d.version === 'number' ? d.version : 1}, ${str(d.mode) ?? 'draft'})`;
    case 'approve_rule':
      return `Approved the rule${str(d.name) ? ` ${str(d.name)}` : ''} (version ${typeof d.version === 'number' ? d.version : 1}) to place sanctions live`;
    case 'rule_action': {
      const acts = d.actions && typeof d.actions === 'object' ? Object.keys(d.actions) : [];
      const words: Record<string, string> = {
        priority: 'raised its priority',
        queue: 'moved it to another queue',
        escalate: 'escalated it',
        tag: 'tagged the player',
        sanction: 'placed a sanction on the player',
        notify: 'told the reporting studios (rule.matched)',
        wave: 'added the player to a wave',
        holdPoints: "held the player's points",
        releaseHold: "ended the hold on the player's points",
      };
      const did = acts.map((a) => words[a] ?? a).join(', ');
      return `The rule${str(d.name) ? ` ${str(d.name)}` : ''} acted on the case${did ? `: ${did}` : ''}`;
    }
    case 'clear_evasion':
      return 'Cleared a suspicion of ban evasion (not evasion)';
    case 'run_retention': {
      const removed = d.removed && typeof d.removed === 'object' ? Object.values(d.removed) : [];
      const rows = removed.reduce<number>((n, v) => n + (typeof v === 'number' ? v : 0), 0);
      return `Ran retention now (${rows} ${rows === 1 ? 'row' : 'rows'} past their window removed)`;
    }
    default:
      return e.action;
  }
}
