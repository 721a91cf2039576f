/**
 * A small reference model of the documented trust rules (docs/studios.md "Trust integrity", "Moderators",
 * "Appeals", "Recovery"), written from the README and not from the code: the model-based test runs
 * random sequences of real API calls against the service and against this model, and compares them
 * after every step. It covers one player, two studios (A with a small budget and quota, B with the
 * defaults), reporters with and without credibility history, mutes, cases upheld and dismissed,
 * appeals of offenses and sanctions, sanctions placed, revoked and expired, and recovery on a clock
 * counted in days.
 */
export type Studio = 'A' | 'B';
export type Kind = 'anticheat' | 'toxicity' | 'griefing' | 'afk';
export type Severity = 'low' | 'medium' | 'high' | 'critical';
export type Status = 'applied' | 'held' | 'released' | 'dropped' | 'recorded' | 'restored';

/** README: points by kind and severity (the extras are never sent by the model's reports). */
const POINTS: Record<Kind, Record<Severity, number>> = {
  anticheat: { low: 5, medium: 10, high: 15, critical: 20 },
  griefing: { low: 3, medium: 6, high: 10, critical: 15 },
  toxicity: { low: 2, medium: 4, high: 7, critical: 10 },
  afk: { low: 1, medium: 2, high: 3, critical: 5 },
};

export interface ReportInput {
  studio: Studio;
  kind: Kind;
  severity: Severity;
  flag: boolean;
  reporter: string | null;
  /** 'player' makes it a player's report; 'game_server' not; null: none (a player's if a reporter). */
  source: 'player' | 'game_server' | null;
  matchId: string | null;
}

export interface ModelOffense {
  id: string;
  studio: Studio;
  reporter: string | null;
  status: Status;
  points: number;
  held: number;
  restored: number;
  restoredBy: 'dismissal' | 'appeal' | null;
}

export interface ModelSanction {
  id: string;
  scope: 'global' | Studio;
  /** In model days; null: never. */
  expiresAt: number | null;
  revoked: boolean;
  /** A granted appeal revoked it: nothing left to appeal. */
  granted: boolean;
}

export interface Policy {
  budget: number;
  quota: number;
}

export type ReportOutcome =
  | { status: 201; offense: Omit<ModelOffense, 'id'> }
  | { status: 409; code: 'duplicate_report'; offenseId: string }
  | { status: 429; code: 'reporter_quota_exceeded' };

export class TrustModel {
  score = 100;
  /** The model clock, in days since the sequence began (the API's clock and recovery's). */
  clock = 0;
  /** Recovery pays from here (README: the last offense's time, moved forward by what it paid). */
  recoveryFrom = 0;
  recovered = 0;
  readonly offenses: ModelOffense[] = [];
  readonly sanctions: ModelSanction[] = [];
  private readonly budgetUsed = new Map<Studio, number>();
  private readonly quotaUsed = new Map<string, number>();
  private readonly dedup = new Map<string, string>();
  private readonly reporters = new Map<string, { upheld: number; dismissed: number; muted: boolean }>();
  /** Open appeals by subject id, and the subjects whose appeal was granted. */
  readonly openAppeals = new Map<string, string>();

  constructor(
    private readonly policies: Record<Studio, Policy>,
    private readonly credibility: { threshold: number; minHistory: number },
  ) {}

  offense(id: string): ModelOffense | undefined {
    return this.offenses.find((o) => o.id === id);
  }

  /** What the service must answer to a report; `commit` records it once the real id is known. */
  report(
    r: ReportInput,
  ): ReportOutcome | { status: 201; commit: (id: string) => void; offense: Omit<ModelOffense, 'id'> } {
    const rkey = r.reporter === null ? null : `${r.studio}/${r.reporter}`;
    const dkey = rkey === null ? null : `${rkey}/${r.kind}/${r.matchId ?? ''}`;
    if (dkey !== null && this.dedup.has(dkey))
      return { status: 409, code: 'duplicate_report', offenseId: this.dedup.get(dkey)! };
    if (rkey !== null && (this.quotaUsed.get(rkey) ?? 0) >= this.policies[r.studio].quota)
      return { status: 429, code: 'reporter_quota_exceeded' };
    const penalty = r.flag ? POINTS[r.kind][r.severity] : 0;
    const rep = rkey === null ? undefined : this.reporters.get(rkey);
    const playerSourced = r.source === 'player' || (r.source === null && r.reporter !== null);
    const history = rep ? rep.upheld + rep.dismissed : 0;
    let o: Omit<ModelOffense, 'id'>;
    const base = { studio: r.studio, reporter: r.reporter, restored: 0, restoredBy: null };
    if (!r.flag || rep?.muted) o = { ...base, status: 'recorded', points: 0, held: 0 };
    else if (
      playerSourced &&
      rep &&
      history >= this.credibility.minHistory &&
      (rep.upheld + 1) / (history + 2) < this.credibility.threshold
    )
      o = { ...base, status: 'held', points: 0, held: penalty };
    else if ((this.budgetUsed.get(r.studio) ?? 0) + penalty > this.policies[r.studio].budget)
      o = { ...base, status: 'held', points: 0, held: penalty };
    else o = { ...base, status: 'applied', points: Math.min(penalty, this.score), held: 0 };
    return {
      status: 201,
      offense: o,
      commit: (id: string) => {
        if (rkey !== null) this.quotaUsed.set(rkey, (this.quotaUsed.get(rkey) ?? 0) + 1);
        if (dkey !== null) this.dedup.set(dkey, id);
        if (o.status === 'applied')
          this.budgetUsed.set(r.studio, (this.budgetUsed.get(r.studio) ?? 0) + o.points);
        if (o.status === 'applied' || o.status === 'held') this.recoveryFrom = 0;
        this.score -= o.points;
        this.offenses.push({ id, ...o });
      },
    };
  }

  /** A case resolved with these offenses (in the order the reports came). */
  resolve(offenseIds: readonly string[], outcome: 'upheld' | 'dismissed'): void {
    const list = this.offenses.filter((o) => offenseIds.includes(o.id));
    if (outcome === 'upheld')
      for (const o of list.filter((x) => x.status === 'held')) {
        const taken = Math.min(o.held, this.score);
        this.score -= taken;
        o.points += taken;
        o.status = 'released';
      }
    else this.giveBack(list, 'dismissal');
    for (const o of list) {
      if (o.reporter === null) continue;
      const rep = this.reporter(`${o.studio}/${o.reporter}`);
      if (outcome === 'upheld') rep.upheld++;
      else rep.dismissed++;
    }
  }

  /** Dismissal or granted appeal: taken points come back once (never above 100), held ones drop. */
  private giveBack(list: ModelOffense[], by: 'dismissal' | 'appeal'): number {
    let total = 0;
    for (const o of list) {
      if (o.status === 'held') {
        o.status = 'dropped';
        o.restoredBy = by;
      } else if (o.status === 'applied' || o.status === 'released') {
        const back = Math.min(o.points, 100 - this.score);
        this.score += back;
        total += back;
        o.restored = back;
        o.status = 'restored';
        o.restoredBy = by;
      }
    }
    return total;
  }

  /** Whether an appeal of this subject can be filed, and if not the code of the 409. */
  appealable(subjectId: string): true | 'appeal_open' | 'not_appealable' {
    const o = this.offense(subjectId);
    if (o && !['applied', 'held', 'released'].includes(o.status)) return 'not_appealable';
    const s = this.sanctions.find((x) => x.id === subjectId);
    if (s && (s.revoked || s.granted)) return 'not_appealable';
    return this.openAppeals.has(subjectId) ? 'appeal_open' : true;
  }

  /** A granted appeal: the points it gives back. */
  grant(subjectId: string): number {
    this.openAppeals.delete(subjectId);
    const o = this.offense(subjectId);
    if (o) return this.giveBack([o], 'appeal');
    const s = this.sanctions.find((x) => x.id === subjectId)!;
    s.revoked = true;
    s.granted = true;
    return 0;
  }

  mute(studio: Studio, reporter: string, muted: boolean): void {
    this.reporter(`${studio}/${reporter}`).muted = muted;
  }

  /** README: one point per TRUST_RECOVERY_DAYS_PER_POINT (1 here) clean days, never above 100. */
  tick(days: number): void {
    this.clock += days;
    const now = this.clockDays();
    const periods = Math.floor(now - this.recoveryFrom);
    if (this.score < 100 && periods >= 1) {
      const before = this.score;
      this.score = Math.min(100, this.score + periods);
      this.recovered += this.score - before;
      this.recoveryFrom += periods;
    }
  }

  /** The clock the API and recovery run on: whole days plus a half once it moved (off any boundary). */
  clockDays(): number {
    return this.clock === 0 ? 0 : this.clock + 0.5;
  }

  activeSanctions(viewer: Studio): string[] {
    const now = this.clockDays();
    return this.sanctions
      .filter((s) => !s.revoked && (s.expiresAt === null || now < s.expiresAt))
      .filter((s) => s.scope === 'global' || s.scope === viewer)
      .map((s) => s.id)
      .sort();
  }

  private reporter(key: string) {
    let rep = this.reporters.get(key);
    if (!rep) this.reporters.set(key, (rep = { upheld: 0, dismissed: 0, muted: false }));
    return rep;
  }
}
