-- The row-by-row filing function of migration 006, kept here as the reference the set-based
-- pt_file_reports (migration 016) is compared with (test/integration/file-reports.test.ts). Migration
-- 018 dropped it from the database (the expand/contract rule: no release calls it since 016); the
-- test creates this copy in a schema of its own, pt_reference, and drops the schema after.
CREATE SCHEMA IF NOT EXISTS pt_reference;

-- Files reports, in order, in the caller's transaction: one round trip for any number. Each item
-- (see recordReports in repos/offenses.ts) answers one JSON object with a status: created,
-- not_found, duplicate or quota_exceeded. Locks are taken players first (in id order), then the
-- reporters' quota rows (in key order), so concurrent calls wait for each other rather than deadlock.
-- Each statement here sees rows committed before it ran (READ COMMITTED, a volatile function), and
-- every report on a player runs under that player's row lock: the duplicate check, the budget and
-- the score are exact under any concurrency.
CREATE OR REPLACE FUNCTION pt_reference.pt_record_reports(items jsonb) RETURNS SETOF jsonb
LANGUAGE plpgsql AS $$
DECLARE
  it jsonb;
  p record;
  q record;
  rep_upheld int;
  rep_dismissed int;
  rep_muted boolean;
  v_dup uuid;
  b record;
  o offenses%ROWTYPE;
  v_reporter text;
  v_match text;
  v_penalty int;
  v_applied int;
  v_held int;
  v_status text;
  v_reason text;
  v_used int;
  v_wstart timestamptz;
  v_remaining int;
  v_outbox jsonb;
BEGIN
  PERFORM 1 FROM players
    WHERE service_id IN (SELECT x->>'serviceId' FROM jsonb_array_elements(items) x)
    ORDER BY id FOR NO KEY UPDATE;
  INSERT INTO reporter_quota (studio_id, reporter_id, window_start, used)
  SELECT DISTINCT (x->>'studioId')::uuid, x->>'reporterId', now(), 0
    FROM jsonb_array_elements(items) x WHERE x->>'reporterId' IS NOT NULL
   ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  PERFORM 1 FROM reporter_quota
    WHERE (studio_id, reporter_id) IN (
      SELECT (x->>'studioId')::uuid, x->>'reporterId' FROM jsonb_array_elements(items) x
       WHERE x->>'reporterId' IS NOT NULL)
    ORDER BY studio_id, reporter_id FOR UPDATE;

  FOR it IN SELECT value FROM jsonb_array_elements(items) LOOP
    SELECT id, service_id, trust_score INTO p FROM players WHERE service_id = it->>'serviceId';
    IF NOT FOUND THEN
      RETURN NEXT jsonb_build_object('status', 'not_found');
      CONTINUE;
    END IF;
    v_reporter := it->>'reporterId';
    v_match := coalesce(it->>'matchId', '');
    v_remaining := NULL;
    rep_upheld := NULL; rep_dismissed := NULL; rep_muted := NULL;

    IF v_reporter IS NOT NULL THEN
      SELECT d.offense_id INTO v_dup FROM report_dedup d
       WHERE d.player_id = p.id AND d.studio_id = (it->>'studioId')::uuid AND d.reporter_id = v_reporter
         AND d.type = it->>'type' AND d.match_key = v_match AND d.expires_at > now();
      IF FOUND THEN
        RETURN NEXT jsonb_build_object('status', 'duplicate', 'offenseId', v_dup);
        CONTINUE;
      END IF;
      SELECT * INTO q FROM reporter_quota WHERE studio_id = (it->>'studioId')::uuid AND reporter_id = v_reporter;
      IF q.window_start <= now() - interval '24 hours' THEN
        v_used := 0; v_wstart := now();
      ELSE
        v_used := q.used; v_wstart := q.window_start;
      END IF;
      IF v_used >= (it->>'reporterQuota')::int THEN
        RETURN NEXT jsonb_build_object('status', 'quota_exceeded',
          'retryAfterSeconds', GREATEST(1, ceil(extract(epoch FROM v_wstart + interval '24 hours' - now())))::int);
        CONTINUE;
      END IF;
      UPDATE reporter_quota SET used = v_used + 1, window_start = v_wstart
       WHERE studio_id = (it->>'studioId')::uuid AND reporter_id = v_reporter;
      v_remaining := (it->>'reporterQuota')::int - v_used - 1;
      SELECT upheld, dismissed, muted_at IS NOT NULL INTO rep_upheld, rep_dismissed, rep_muted FROM reporters
       WHERE studio_id = (it->>'studioId')::uuid AND reporter_id = v_reporter;
    END IF;

    v_penalty := (it->>'penalty')::int;
    v_applied := 0; v_held := 0; v_reason := NULL; v_status := 'applied';
    IF NOT (it->>'detected')::boolean THEN
      v_status := 'recorded'; v_reason := 'no_finding';
    ELSIF rep_muted THEN
      v_status := 'recorded'; v_reason := 'reporter_muted';
    ELSIF (it->>'playerSourced')::boolean AND rep_upheld IS NOT NULL
          AND rep_upheld + rep_dismissed >= (it->>'credibilityMinHistory')::int
          AND (rep_upheld + 1)::numeric / (rep_upheld + rep_dismissed + 2) < (it->>'credibilityThreshold')::numeric
          AND v_penalty > 0 THEN
      v_status := 'held'; v_reason := 'reporter_credibility'; v_held := v_penalty;
    ELSIF v_penalty > 0 THEN
      SELECT window_start, points INTO b FROM studio_player_budget
       WHERE player_id = p.id AND studio_id = (it->>'studioId')::uuid;
      IF NOT FOUND OR b.window_start <= now() - interval '24 hours' THEN
        v_used := 0; v_wstart := now();
      ELSE
        v_used := b.points; v_wstart := b.window_start;
      END IF;
      IF v_used + v_penalty > (it->>'studioBudget')::int THEN
        v_status := 'held'; v_reason := 'studio_budget'; v_held := v_penalty;
      ELSE
        v_applied := LEAST(v_penalty, p.trust_score);
        IF v_applied > 0 THEN
          INSERT INTO studio_player_budget (player_id, studio_id, window_start, points)
          VALUES (p.id, (it->>'studioId')::uuid, v_wstart, v_used + v_applied)
          ON CONFLICT (player_id, studio_id) DO UPDATE SET window_start = excluded.window_start, points = excluded.points;
        END IF;
      END IF;
    END IF;

    UPDATE players SET trust_score = trust_score - v_applied, offense_count = offense_count + 1,
           updated_at = now(), recovery_from = CASE WHEN v_status IN ('applied', 'held') THEN now() ELSE recovery_from END
     WHERE id = p.id;
    INSERT INTO offenses (id, player_id, game_id, studio_id, type, description, severity, detected, penalty_points,
                          evidence, details, context, trust_score_after, reporter_id, match_id, penalty_held,
                          status, status_reason)
    VALUES ((it->>'offenseId')::uuid, p.id, (it->>'gameId')::uuid, (it->>'studioId')::uuid, it->>'type',
            it->>'description', it->>'severity', (it->>'detected')::boolean, v_applied, it->'evidence', it->'details',
            it->'context', p.trust_score - v_applied, v_reporter, it->>'matchId', v_held, v_status, v_reason)
    RETURNING * INTO o;
    IF v_applied > 0 THEN
      INSERT INTO trust_history (player_id, points, score_before, score_after, reason, offense_id, studio_id)
      VALUES (p.id, -v_applied, p.trust_score, p.trust_score - v_applied, 'offense', o.id, o.studio_id);
    END IF;
    IF v_reporter IS NOT NULL THEN
      INSERT INTO report_dedup (studio_id, player_id, reporter_id, type, match_key, offense_id, expires_at)
      VALUES (o.studio_id, p.id, v_reporter, o.type, v_match, o.id,
              now() + CASE WHEN v_match = '' THEN (it->>'dedupSecondsWithoutMatch')::int
                           ELSE (it->>'dedupSecondsWithMatch')::int END * interval '1 second')
      ON CONFLICT (player_id, studio_id, reporter_id, type, match_key)
      DO UPDATE SET offense_id = excluded.offense_id, expires_at = excluded.expires_at;
    END IF;
    WITH ob AS (
      INSERT INTO outbox (queue, job_name, job_id, payload)
      SELECT j.queue, j.job_name, j.job_id, jsonb_build_object('offenseId', o.id)
        FROM jsonb_to_recordset(it->'jobs') AS j(queue text, job_name text, job_id text)
      RETURNING id::text, queue, job_name, job_id, payload)
    SELECT coalesce(jsonb_agg(to_jsonb(ob)), '[]') INTO v_outbox FROM ob;

    RETURN NEXT jsonb_build_object(
      'status', 'created',
      'offense', to_jsonb(o) || jsonb_build_object('service_id', p.service_id, 'cursor_ts', to_json(o.created_at)#>>'{}'),
      'trustScore', p.trust_score - v_applied, 'quotaRemaining', v_remaining, 'outbox', v_outbox);
  END LOOP;
END;
$$;
