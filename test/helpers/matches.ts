/** One player of a test match: blue wins, red loses. */
export interface TestMatchPlayer {
  serviceId: string;
  team: string;
  party?: string;
  leftEarly?: boolean;
  commended?: string[];
}

let seq = 0;

/**
 * A finished match as POST /v1/matches takes it (issue 54), under a fresh matchId with `prefix`:
 * 30 minutes long, ended `endedMinutesAgo`; the blue team won.
 */
export function testMatch(prefix: string, players: TestMatchPlayer[], endedMinutesAgo = 0) {
  const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000).toISOString();
  return {
    matchId: `${prefix}-${Date.now()}-${++seq}`,
    mode: 'ranked',
    startedAt: minutesAgo(endedMinutesAgo + 30),
    endedAt: minutesAgo(endedMinutesAgo),
    players: players.map((p) => ({
      serviceId: p.serviceId,
      team: p.team,
      ...(p.party ? { party: p.party } : {}),
      result: p.team === 'blue' ? 'win' : 'loss',
      leftEarly: p.leftEarly ?? false,
      ...(p.commended ? { commended: p.commended } : {}),
    })),
  };
}
