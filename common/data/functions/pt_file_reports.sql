-- Version: 11
-- pt_file_reports(items jsonb): files a batch of reports, each one's rules decided in order, in one
-- statement of the caller's transaction. This file is the function's only source: `migrate` applies
-- it (CREATE OR REPLACE) after the numbered migrations whenever its version is newer than the one the
-- database has, and records version and hash in pt_source_functions. Migrations 016 and 019 hold
-- earlier versions as history only.
--
-- A change here raises the Version above (a test holds each version to one content) and must keep
-- the signature and the shape of what it answers readable by the previous release (API processes of
-- both run during a rolling deploy, and a rollback keeps the newer function); a change that cannot is
-- a new function under a new name, and the old one is dropped by a later numbered migration.
--
-- The rules it enforces, in the order each report meets them (docs/studios.md "Trust integrity"; the same
-- names in common/domain/filing-rules.ts, and a test holds the two lists equal):
--   Rule unknown_player:       a serviceId with no player files nothing (404 not_found).
--   Rule player_order:         the players of a batch are locked in id order, then each report
--                              reads the state the previous report of the same player left, so
--                              one player's reports apply in the order they came, exactly.
--   Rule duplicate_report:     the same studio, reporterId, player and kind in the same match
--                              (24 h) or, without matchId, within the hour: not stored
--                              (409 duplicate_report, naming the stored offense).
--   Rule reporter_quota:       a reporterId files at most its game's reporterQuota reports per
--                              studio per 24 h, the window starting at its first report
--                              (429 reporter_quota_exceeded with the seconds left).
--   Rule no_finding:           a report whose flag is false is stored as recorded, no points.
--   Rule reporter_muted:       a muted reporter's report is stored as recorded, no points; a
--                              mute with an end (Version 5: an Art. 23 suspension,
--                              docs/moderators.md "Notices") holds until then.
--   Rule party_report:         (Version 10, "Reports that know the match") a player's report naming a
--                              recorded match both played, whose reporterId played it in a party,
--                              after a report of the same kind about the same player in that match
--                              from another member of the party (stored, or earlier in the batch): stored
--                              as recorded, no points. A party counts as one reporter.
--   Rule notice:               a notice (Version 4: an item with `hold`, docs/moderators.md "Notices") is held
--                              for a moderator, whatever the reporter's credibility or budget.
--   Rule evasion_check:        (Version 11) the sign-in check's own filing on a suspected evasion of a
--                              ban (an item with `hold` evasion_check, docs/linked-accounts.md "Evasion
--                              at the door") is held for a moderator: a link alone takes nothing.
--   Rule rule_hold:            while a rule holds the player's points (Version 6: players.
--                              points_held_until, docs/moderators.md "Rules"), a report with points is held for
--                              a moderator.
--   Rule brigading:            (Version 10) a player's report naming a recorded match both played,
--                              when its reporter, or a member of the reporter's party in it, already
--                              reported the same player in 2 other matches within 7 days: held for a
--                              moderator (possible brigading; its points capped at none until then).
--   Rule reporter_credibility: a player-sourced report from a reporter whose credibility
--                              (upheld + 1) / (upheld + dismissed + 2) is below the threshold once
--                              it has enough resolved reports is held for a moderator.
--   Rule after_loss:           (Version 10) a player's report naming a recorded match, filed within
--                              30 minutes of its end by a reporter of the other team who lost it:
--                              its penalty is halved (rounded up).
--   Rule studio_budget:        points that would take the studio past its budget on the player in
--                              24 h (the window starting at its first applied points) are held.
--   Rule score_floor:          the points applied never take the score below 0.
--
-- The jobs the created offenses owe (Version 2): the first item's `batchJobs` names them (queue and
-- job name), and one outbox row a queue and queue shard carries all of the batch's offenses of that
-- shard (`offenseIds`, in order; `queueShards` items: the count, pt_shard_of the shard), under the
-- job id `<queue>-b-<its first offense>` and with its first offense's player as the shard key. Items
-- that name their own `jobs` (the previous release's API, during a rolling deploy) get one row a job
-- and offense, as Version 1 wrote them. Either way each outcome's `outbox` lists the rows whose first
-- offense is its own.
--
-- Traces (Version 3): an item may carry the W3C `traceparent` of the request that filed it (only when
-- tracing is on, docs/operators.md "Tracing"). A row's payload then carries them too, for the worker to continue
-- each report's trace: `traceparent` on a one-offense row, `traceparents` (one an offense, in the
-- order of `offenseIds`, null for an item without one) on a batch row. Without any, payloads are
-- exactly Version 2's.
CREATE OR REPLACE FUNCTION pt_file_reports(items jsonb) RETURNS SETOF jsonb
LANGUAGE plpgsql AS $$
DECLARE
  n int := jsonb_array_length(items);
  v_shards int := coalesce((items->0->>'queueShards')::int, 1);
  r record;
  -- The outcome of each report: created, not_found, duplicate or quota_exceeded (and its figures).
  res_status text[] := array_fill(NULL::text, ARRAY[n]);
  res_dup uuid[] := array_fill(NULL::uuid, ARRAY[n]);
  res_retry int[] := array_fill(NULL::int, ARRAY[n]);
  res_remaining int[] := array_fill(NULL::int, ARRAY[n]);
  -- State after each report, read by the next report of the same key (r.prev_*): the player's score;
  -- the studio's budget on the player (points, window start; null start: no row); the reporter's
  -- quota (used, window start); the live duplicate's offense for the report's duplicate key.
  sc int[] := array_fill(NULL::int, ARRAY[n]);
  bu int[] := array_fill(NULL::int, ARRAY[n]);
  bw timestamptz[] := array_fill(NULL::timestamptz, ARRAY[n]);
  qu int[] := array_fill(NULL::int, ARRAY[n]);
  qw timestamptz[] := array_fill(NULL::timestamptz, ARRAY[n]);
  dk uuid[] := array_fill(NULL::uuid, ARRAY[n]);
  -- Whether the reporter's party already reported the player of the kind in the match (party_report).
  pk boolean[] := array_fill(NULL::boolean, ARRAY[n]);
  -- The created offenses, in order: what the writing statement inserts.
  c_n int[] := '{}';
  c_player uuid[] := '{}';
  c_applied int[] := '{}';
  c_held int[] := '{}';
  c_status text[] := '{}';
  c_reason text[] := '{}';
  c_after int[] := '{}';
  -- Budget and quota rows to write (the last write of a key wins).
  b_player uuid[] := '{}';
  b_studio uuid[] := '{}';
  b_wstart timestamptz[] := '{}';
  b_points int[] := '{}';
  q_studio uuid[] := '{}';
  q_reporter text[] := '{}';
  q_wstart timestamptz[] := '{}';
  q_used int[] := '{}';
  v_score int;
  v_bused int;
  v_bstart timestamptz;
  v_qused int;
  v_qstart timestamptz;
  v_dup uuid;
  v_party boolean;
  v_penalty int;
  v_applied int;
  v_held int;
  v_status text;
  v_reason text;
  v_used int;
  v_wstart timestamptz;
  -- How many created offenses, budget and quota writes so far (arrays are filled by index: in place).
  nc int := 0;
  nb int := 0;
  nq int := 0;
  v_history boolean := false;
  v_dedup boolean := false;
BEGIN
  PERFORM 1 FROM players
    WHERE service_id IN (SELECT x->>'serviceId' FROM jsonb_array_elements(items) x)
    ORDER BY id FOR NO KEY UPDATE;
  -- The reporters' quotas: made if new, then locked in key order (Version 8: only when a report names
  -- a reporter, and by key: the index is searched for the batch's studios and reporters, so the lock
  -- reads the batch's rows, not the table, whatever the planner was told of its size).
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(items) x WHERE x->>'reporterId' IS NOT NULL) THEN
    INSERT INTO reporter_quota (studio_id, reporter_id, window_start, used)
    SELECT DISTINCT (x->>'studioId')::uuid, x->>'reporterId', now(), 0
      FROM jsonb_array_elements(items) x WHERE x->>'reporterId' IS NOT NULL
     ORDER BY 1, 2
    ON CONFLICT DO NOTHING;
    PERFORM 1 FROM reporter_quota
      WHERE studio_id = ANY (ARRAY(SELECT DISTINCT (x->>'studioId')::uuid FROM jsonb_array_elements(items) x
                                    WHERE x->>'reporterId' IS NOT NULL))
        AND reporter_id = ANY (ARRAY(SELECT DISTINCT x->>'reporterId' FROM jsonb_array_elements(items) x
                                      WHERE x->>'reporterId' IS NOT NULL))
        AND (studio_id, reporter_id) IN (
          SELECT (x->>'studioId')::uuid, x->>'reporterId' FROM jsonb_array_elements(items) x
           WHERE x->>'reporterId' IS NOT NULL)
      ORDER BY studio_id, reporter_id FOR UPDATE;
  END IF;

  -- Everything the decisions read, one row per report in order, with the previous report of the same
  -- player, budget, quota and duplicate key.
  FOR r IN
    WITH it AS (
      SELECT t.n::int AS n, t.v->>'serviceId' AS service_id, (t.v->>'studioId')::uuid AS studio_id,
             t.v->>'reporterId' AS reporter_id, t.v->>'type' AS type, coalesce(t.v->>'matchId', '') AS match_key,
             (t.v->>'penalty')::int AS penalty, (t.v->>'detected')::boolean AS detected,
             (t.v->>'playerSourced')::boolean AS player_sourced, (t.v->>'reporterQuota')::int AS quota,
             (t.v->>'studioBudget')::int AS budget, (t.v->>'credibilityMinHistory')::int AS min_history,
             (t.v->>'credibilityThreshold')::numeric AS threshold, t.v->>'hold' AS hold
        FROM jsonb_array_elements(items) WITH ORDINALITY AS t(v, n))
    SELECT it.*, p.id AS player_id, p.trust_score, p.points_held_until > now() AS rule_hold,
           lag(it.n) OVER (PARTITION BY p.id ORDER BY it.n) AS prev_p,
           lag(it.n) OVER (PARTITION BY p.id, it.studio_id ORDER BY it.n) AS prev_b,
           lag(it.n) OVER (PARTITION BY it.studio_id, it.reporter_id ORDER BY it.n) AS prev_q,
           lag(it.n) OVER (PARTITION BY p.id, it.studio_id, it.reporter_id, it.type, it.match_key ORDER BY it.n) AS prev_d,
           CASE WHEN m.party IS NOT NULL THEN
             lag(it.n) OVER (PARTITION BY p.id, it.studio_id, it.type, it.match_key, m.party ORDER BY it.n) END AS prev_k,
           m.team IS NOT NULL AS in_match, m.party_reported, m.brigading, m.after_loss,
           d.offense_id AS dup_offense, q.used AS q_used, q.window_start AS q_wstart,
           rp.upheld, rp.dismissed, (rp.muted_at IS NOT NULL AND (rp.muted_until IS NULL OR rp.muted_until > now())) AS muted, b.points AS b_points, b.window_start AS b_wstart
      FROM it
      -- Each a look-up by key, a report at a time (LATERAL, Version 7; LIMIT 1, at most one row by
      -- the key, keeps the planner from joining the table as a whole): a batch is a few reports, and
      -- a plan that reads a whole table for them (a hash join over it, or a scan of it kept in memory
      -- when the plan was made while it was nearly empty) costs what the table holds.
      LEFT JOIN LATERAL (SELECT p.id, p.trust_score, p.points_held_until FROM players p
                          WHERE p.service_id = it.service_id LIMIT 1) p ON true
      LEFT JOIN LATERAL (SELECT d.offense_id FROM report_dedup d
                          WHERE it.reporter_id IS NOT NULL AND d.player_id = p.id AND d.studio_id = it.studio_id
                            AND d.reporter_id = it.reporter_id AND d.type = it.type AND d.match_key = it.match_key
                            AND d.expires_at > now() LIMIT 1) d ON true
      LEFT JOIN LATERAL (SELECT q.used, q.window_start FROM reporter_quota q
                          WHERE it.reporter_id IS NOT NULL AND q.studio_id = it.studio_id
                            AND q.reporter_id = it.reporter_id LIMIT 1) q ON true
      LEFT JOIN LATERAL (SELECT rp.upheld, rp.dismissed, rp.muted_at, rp.muted_until FROM reporters rp
                          WHERE it.reporter_id IS NOT NULL AND rp.studio_id = it.studio_id
                            AND rp.reporter_id = it.reporter_id LIMIT 1) rp ON true
      LEFT JOIN LATERAL (SELECT b.points, b.window_start FROM studio_player_budget b
                          WHERE b.player_id = p.id AND b.studio_id = it.studio_id LIMIT 1) b ON true
      -- The match the report names, when it is recorded and both played it (Version 10): the
      -- reporter's team, party and result there, and what the rules on it read. Only a player's
      -- report with a reporterId and a matchId looks.
      LEFT JOIN LATERAL (
        SELECT rm.team, rm.party,
               rm.team <> tm.team AND rm.result = 'loss' AND now() - rm.ended_at <= interval '30 minutes' AS after_loss,
               EXISTS (SELECT 1 FROM report_dedup d
                        WHERE rm.party IS NOT NULL AND d.player_id = p.id AND d.studio_id = it.studio_id
                          AND d.reporter_id = ANY (g.ids) AND d.reporter_id <> it.reporter_id
                          AND d.type = it.type AND d.match_key = it.match_key AND d.expires_at > now()) AS party_reported,
               (SELECT count(DISTINCT o.match_id) FROM offenses o
                 WHERE o.player_id = p.id AND o.reporter_id = ANY (g.ids) AND o.reporter_id IS NOT NULL
                   AND o.match_id IS NOT NULL AND o.created_at > now() - interval '7 days'
                   AND o.studio_id = it.studio_id AND o.match_id <> it.match_key) >= 2 AS brigading
          FROM player_matches rm
          JOIN player_matches tm ON tm.studio_id = rm.studio_id AND tm.match_id = rm.match_id AND tm.player_id = p.id
         CROSS JOIN LATERAL (
               SELECT CASE WHEN rm.party IS NULL THEN ARRAY[it.reporter_id]
                           ELSE ARRAY(SELECT mp.service_id FROM player_matches pm JOIN players mp ON mp.id = pm.player_id
                                       WHERE pm.studio_id = rm.studio_id AND pm.match_id = rm.match_id
                                         AND pm.party = rm.party) END AS ids) g
         WHERE it.player_sourced AND it.reporter_id IS NOT NULL AND it.match_key <> ''
           AND rm.studio_id = it.studio_id AND rm.match_id = it.match_key
           AND rm.player_id = (SELECT rp2.id FROM players rp2 WHERE rp2.service_id = it.reporter_id)
         LIMIT 1) m ON true
     ORDER BY it.n
  LOOP
    -- The state before this report: what the previous report of the same key left, or the stored
    -- row; unless this report changes it, it leaves it as it was. (The quota's key is not the
    -- player's: a report on an unknown player passes its reporter's quota on unchanged.)
    IF r.prev_q IS NULL THEN v_qused := r.q_used; v_qstart := r.q_wstart;
    ELSE v_qused := qu[r.prev_q]; v_qstart := qw[r.prev_q]; END IF;
    qu[r.n] := v_qused; qw[r.n] := v_qstart;
    IF r.player_id IS NULL THEN
      res_status[r.n] := 'not_found';
      CONTINUE;
    END IF;
    v_score := CASE WHEN r.prev_p IS NULL THEN r.trust_score ELSE sc[r.prev_p] END;
    IF r.prev_b IS NULL THEN v_bused := r.b_points; v_bstart := r.b_wstart;
    ELSE v_bused := bu[r.prev_b]; v_bstart := bw[r.prev_b]; END IF;
    v_dup := CASE WHEN r.prev_d IS NULL THEN r.dup_offense ELSE dk[r.prev_d] END;
    v_party := CASE WHEN r.prev_k IS NULL THEN coalesce(r.party_reported, false) ELSE pk[r.prev_k] END;
    sc[r.n] := v_score; bu[r.n] := v_bused; bw[r.n] := v_bstart; dk[r.n] := v_dup; pk[r.n] := v_party;

    IF r.reporter_id IS NOT NULL THEN
      IF v_dup IS NOT NULL THEN
        res_status[r.n] := 'duplicate';
        res_dup[r.n] := v_dup;
        CONTINUE;
      END IF;
      IF v_qstart <= now() - interval '24 hours' THEN
        v_used := 0; v_wstart := now();
      ELSE
        v_used := v_qused; v_wstart := v_qstart;
      END IF;
      IF v_used >= r.quota THEN
        res_status[r.n] := 'quota_exceeded';
        res_retry[r.n] := GREATEST(1, ceil(extract(epoch FROM v_wstart + interval '24 hours' - now())))::int;
        CONTINUE;
      END IF;
      qu[r.n] := v_used + 1; qw[r.n] := v_wstart;
      nq := nq + 1;
      q_studio[nq] := r.studio_id; q_reporter[nq] := r.reporter_id; q_wstart[nq] := v_wstart; q_used[nq] := v_used + 1;
      res_remaining[r.n] := r.quota - v_used - 1;
      dk[r.n] := (items->(r.n - 1)->>'offenseId')::uuid;
      v_dedup := true;
    END IF;

    v_penalty := r.penalty;
    v_applied := 0; v_held := 0; v_reason := NULL; v_status := 'applied';
    IF NOT r.detected THEN
      v_status := 'recorded'; v_reason := 'no_finding';
    ELSIF r.muted THEN
      v_status := 'recorded'; v_reason := 'reporter_muted';
    ELSIF v_party THEN
      v_status := 'recorded'; v_reason := 'party_report';
    ELSIF r.hold = 'notice' THEN
      v_status := 'held'; v_reason := 'notice'; v_held := v_penalty;
    ELSIF r.hold = 'evasion_check' THEN
      v_status := 'held'; v_reason := 'evasion_check'; v_held := v_penalty;
    ELSIF r.rule_hold AND v_penalty > 0 THEN
      v_status := 'held'; v_reason := 'rule_hold'; v_held := v_penalty;
    ELSIF r.brigading AND v_penalty > 0 THEN
      v_status := 'held'; v_reason := 'brigading'; v_held := v_penalty;
    ELSIF r.player_sourced AND r.upheld IS NOT NULL
          AND r.upheld + r.dismissed >= r.min_history
          AND (r.upheld + 1)::numeric / (r.upheld + r.dismissed + 2) < r.threshold
          AND v_penalty > 0 THEN
      v_status := 'held'; v_reason := 'reporter_credibility'; v_held := v_penalty;
    ELSIF v_penalty > 0 THEN
      IF r.after_loss THEN v_penalty := ceil(v_penalty / 2.0)::int; END IF;
      IF v_bstart IS NULL OR v_bstart <= now() - interval '24 hours' THEN
        v_used := 0; v_wstart := now();
      ELSE
        v_used := v_bused; v_wstart := v_bstart;
      END IF;
      IF v_used + v_penalty > r.budget THEN
        v_status := 'held'; v_reason := 'studio_budget'; v_held := v_penalty;
      ELSE
        v_applied := LEAST(v_penalty, v_score);
        IF v_applied > 0 THEN
          bu[r.n] := v_used + v_applied; bw[r.n] := v_wstart;
          nb := nb + 1;
          b_player[nb] := r.player_id; b_studio[nb] := r.studio_id; b_wstart[nb] := v_wstart;
          b_points[nb] := v_used + v_applied;
        END IF;
      END IF;
    END IF;

    sc[r.n] := v_score - v_applied;
    v_history := v_history OR v_applied > 0;
    res_status[r.n] := 'created';
    IF r.in_match THEN pk[r.n] := true; END IF;
    nc := nc + 1;
    c_n[nc] := r.n; c_player[nc] := r.player_id; c_applied[nc] := v_applied; c_held[nc] := v_held;
    c_status[nc] := v_status; c_reason[nc] := v_reason; c_after[nc] := v_score - v_applied;
  END LOOP;

  -- The rows only some batches need, each by one statement when there are any (a statement's fixed
  -- cost, its locks and index opens, is most of a one-report batch's); then one statement writes the
  -- offenses, the players and the outbox, and answers the outcomes in order.
  IF v_history THEN
    INSERT INTO trust_history (player_id, points, score_before, score_after, reason, offense_id, studio_id)
    SELECT u.player_id, -u.applied, u.score_after + u.applied, u.score_after, 'offense',
           (items->(u.n - 1)->>'offenseId')::uuid, (items->(u.n - 1)->>'studioId')::uuid
      FROM unnest(c_n, c_player, c_applied, c_after) WITH ORDINALITY AS u(n, player_id, applied, score_after, k)
     WHERE u.applied > 0 ORDER BY u.k;
  END IF;
  IF v_dedup THEN
    INSERT INTO report_dedup (studio_id, player_id, reporter_id, type, match_key, offense_id, expires_at)
    SELECT (x.v->>'studioId')::uuid, u.player_id, x.v->>'reporterId', x.v->>'type', coalesce(x.v->>'matchId', ''),
           (x.v->>'offenseId')::uuid,
           now() + CASE WHEN coalesce(x.v->>'matchId', '') = '' THEN (x.v->>'dedupSecondsWithoutMatch')::int
                        ELSE (x.v->>'dedupSecondsWithMatch')::int END * interval '1 second'
      FROM unnest(c_n, c_player) AS u(n, player_id)
     CROSS JOIN LATERAL (SELECT items->(u.n - 1) AS v) x
     WHERE x.v->>'reporterId' IS NOT NULL
    ON CONFLICT (player_id, studio_id, reporter_id, type, match_key)
    DO UPDATE SET offense_id = excluded.offense_id, expires_at = excluded.expires_at;
  END IF;
  IF nb > 0 THEN
    INSERT INTO studio_player_budget (player_id, studio_id, window_start, points)
    SELECT DISTINCT ON (u.player_id, u.studio_id) u.player_id, u.studio_id, u.wstart, u.points
      FROM unnest(b_player, b_studio, b_wstart, b_points) WITH ORDINALITY AS u(player_id, studio_id, wstart, points, k)
     ORDER BY u.player_id, u.studio_id, u.k DESC
    ON CONFLICT (player_id, studio_id) DO UPDATE SET window_start = excluded.window_start, points = excluded.points;
  END IF;
  IF nq > 0 THEN
    UPDATE reporter_quota q SET used = u.used, window_start = u.wstart
      FROM (SELECT DISTINCT ON (u.studio_id, u.reporter_id) u.studio_id, u.reporter_id, u.wstart, u.used
              FROM unnest(q_studio, q_reporter, q_wstart, q_used) WITH ORDINALITY AS u(studio_id, reporter_id, wstart, used, k)
             ORDER BY u.studio_id, u.reporter_id, u.k DESC) u
     WHERE q.studio_id = u.studio_id AND q.reporter_id = u.reporter_id;
  END IF;

  RETURN QUERY
  WITH x AS (
    SELECT t.n::int AS n, t.v, (t.v->>'offenseId')::uuid AS offense_id
      FROM jsonb_array_elements(items) WITH ORDINALITY AS t(v, n)),
  c AS (
    SELECT u.*, x.v, x.offense_id
      FROM unnest(c_n, c_player, c_applied, c_held, c_status, c_reason, c_after)
           AS u(n, player_id, applied, held, status, reason, score_after)
      JOIN x USING (n)),
  ins AS (
    INSERT INTO offenses (id, player_id, game_id, studio_id, type, description, severity, detected, penalty_points,
                          evidence, details, context, trust_score_after, reporter_id, match_id, penalty_held,
                          status, status_reason)
    SELECT c.offense_id, c.player_id, (c.v->>'gameId')::uuid, (c.v->>'studioId')::uuid, c.v->>'type',
           c.v->>'description', c.v->>'severity', (c.v->>'detected')::boolean, c.applied, c.v->'evidence',
           c.v->'details', c.v->'context', c.score_after, c.v->>'reporterId', c.v->>'matchId', c.held, c.status,
           c.reason
      FROM c ORDER BY c.n
    RETURNING *),
  pl AS (
    UPDATE players p
       SET trust_score = g.score, offense_count = p.offense_count + g.cnt, updated_at = now(),
           recovery_from = CASE WHEN g.recover THEN now() ELSE p.recovery_from END
      FROM (SELECT c.player_id, min(c.score_after) AS score, count(*)::int AS cnt,
                   bool_or(c.status IN ('applied', 'held')) AS recover
              FROM c GROUP BY c.player_id) g
     WHERE p.id = g.player_id),
  ob AS (
    INSERT INTO outbox (queue, job_name, job_id, payload, shard_key)
    SELECT w.queue, w.job_name, w.job_id, w.payload, w.shard_key FROM (
      -- Items of the previous release: one row a job and offense.
      SELECT j.queue, j.job_name, j.job_id,
             jsonb_build_object('offenseId', c.offense_id)
               || CASE WHEN c.v ? 'traceparent' THEN jsonb_build_object('traceparent', c.v->'traceparent')
                       ELSE '{}'::jsonb END AS payload,
             c.player_id AS shard_key, c.n, j.k
        FROM c, ROWS FROM (jsonb_to_recordset(c.v->'jobs') AS (queue text, job_name text, job_id text))
             WITH ORDINALITY AS j(queue, job_name, job_id, k)
      UNION ALL
      -- One row a queue and shard for the rest.
      SELECT j.queue, j.job_name, j.queue || '-b-' || g.first_offense,
             jsonb_build_object('offenseIds', g.ids)
               || CASE WHEN g.traced THEN jsonb_build_object('traceparents', g.traces) ELSE '{}'::jsonb END,
             g.first_player, g.first_n, j.k
        FROM (SELECT min(c.n) AS first_n, (array_agg(c.offense_id ORDER BY c.n))[1] AS first_offense,
                     (array_agg(c.player_id ORDER BY c.n))[1] AS first_player,
                     jsonb_agg(c.offense_id ORDER BY c.n) AS ids,
                     bool_or(c.v ? 'traceparent') AS traced,
                     jsonb_agg(coalesce(c.v->'traceparent', 'null'::jsonb) ORDER BY c.n) AS traces
                FROM c WHERE NOT c.v ? 'jobs'
               GROUP BY CASE WHEN v_shards > 1 THEN pt_shard_of(c.player_id::text, v_shards) ELSE 0 END) g,
             ROWS FROM (jsonb_to_recordset(items->0->'batchJobs') AS (queue text, job_name text))
             WITH ORDINALITY AS j(queue, job_name, k)) w
     ORDER BY w.n, w.k
    RETURNING id, queue, job_name, job_id, payload, shard_key),
  obs AS (
    SELECT coalesce(ob.payload->>'offenseId', ob.payload->'offenseIds'->>0)::uuid AS offense_id,
           jsonb_agg(jsonb_build_object('id', ob.id::text, 'queue', ob.queue, 'job_name', ob.job_name,
                                        'job_id', ob.job_id, 'payload', ob.payload,
                                        'shard_key', ob.shard_key) ORDER BY ob.id) AS rows
      FROM ob GROUP BY 1)
  SELECT CASE s.status
           WHEN 'created' THEN jsonb_build_object(
             'status', 'created',
             'offense', to_jsonb(o) || jsonb_build_object('service_id', x.v->>'serviceId',
                                                          'cursor_ts', to_json(o.created_at)#>>'{}'),
             'trustScore', o.trust_score_after, 'quotaRemaining', s.remaining,
             'outbox', coalesce(obs.rows, '[]'))
           WHEN 'duplicate' THEN jsonb_build_object('status', 'duplicate', 'offenseId', s.dup)
           WHEN 'quota_exceeded' THEN jsonb_build_object('status', 'quota_exceeded', 'retryAfterSeconds', s.retry)
           ELSE jsonb_build_object('status', 'not_found')
         END
    FROM unnest(res_status, res_dup, res_retry, res_remaining) WITH ORDINALITY AS s(status, dup, retry, remaining, n)
    JOIN x ON x.n = s.n
    LEFT JOIN ins o ON s.status = 'created' AND o.id = x.offense_id
    LEFT JOIN obs ON obs.offense_id = x.offense_id
   ORDER BY s.n;
END;
$$
-- Its statements' plans do not depend on the batch (every input is an array or the items): one
-- generic plan each, made once per connection, instead of planning them again on every call.
SET plan_cache_mode = force_generic_plan
-- Every table it reads, it reads by key for a batch's reports (Version 7): a sequential scan is never
-- the plan for that, though the planner, told a batch has 100 items (jsonb_array_elements' estimate)
-- or a table few rows (statistics from when it was empty), would choose one.
SET enable_seqscan = off;
